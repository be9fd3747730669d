#!/usr/bin/env bash
# rocectl cc against roced: the CC block at its reset values (ConnectX's
# DCQCN defaults), a knob and a field set and committed then read back
# (also as registers by name and in JSON), a QP's rate and its own
# bounded window through the selection window, the algorithm (the device's
# and a QP's own) and Swift's knobs, and bad input (exit 2, the device unchanged).
# Usage: rocectl_cc.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
ctl=$build/tools/rocectl
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/roced.sh"

sock=$tmp/roced.sock
roced_start "$build" "$sock"
ctl() { "$ctl" --socket "$sock" "$@"; }

ctl cc >"$tmp/out" || fail "cc: $(cat "$tmp/out")"
grep -Eq "^  rpg_time_reset +300 " "$tmp/out" || fail "reset value: $(head -12 "$tmp/out")"
grep -Eq "^  dce_tcp_g +1019 " "$tmp/out" || fail "dce_tcp_g"
grep -q "changed" "$tmp/out" && fail "a knob shows changed at reset"

ctl cc set rpg_ai_rate=40 window_kb=64 rp_prio_mask=0xff adaptive_rto=1 || fail "cc set"
ctl cc >"$tmp/out"
grep -Eq "^  rpg_ai_rate +40 .*\(changed\)" "$tmp/out" || fail "rpg_ai_rate not set: $(cat "$tmp/out")"
grep -Eq "^  window_kb +64 " "$tmp/out" || fail "window_kb not set"
ctl read CC_RPG_AI_RATE | grep -q "CC_RPG_AI_RATE  *0x00000028" || fail "CC_RPG_AI_RATE register: $(ctl read CC_RPG_AI_RATE)"
ctl read CC_CTRL | grep -q "RP_PRIO_MASK=255" || fail "CC_CTRL: $(ctl read CC_CTRL)"
ctl read CC_STATUS | grep -q "CC_STATUS  *0x00000000" || fail "CC_STATUS: $(ctl read CC_STATUS)"
ctl --json cc | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['rpg_ai_rate'] == 40 and d['window_kb'] == 64 and d['adaptive_rto'] == 1, d
assert d['cnp_dscp'] == 48, d
" || fail "cc --json"
ctl cc qp 17 | grep -q "never rate-limited" || fail "cc qp 17"
ctl cc qp 17 | grep -q "window 64 KB (the block's)" || fail "cc qp 17: the block's window"
# a QP's own window (CC_QP_WINDOW_KB through CC_QP_SELECT)
ctl cc qp 17 window=8 || fail "cc qp 17 window=8"
ctl cc qp 17 | grep -q "window 8 KB (its own)" || fail "cc qp 17: its own window: $(ctl cc qp 17)"
ctl cc qp 18 | grep -q "window 64 KB (the block's)" || fail "cc qp 18 took 17's window"
ctl --json cc qp 17 | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['window_kb'] == 8 and d['window_own'] is True, d
" || fail "cc qp --json"
ctl read CC_QP_WINDOW_KB | grep -q "CC_QP_WINDOW_KB  *0x00000008" || fail "CC_QP_WINDOW_KB: $(ctl read CC_QP_WINDOW_KB)"
ctl cc qp 17 window=0 || fail "cc qp 17 window=0"
ctl cc qp 17 | grep -q "window 64 KB (the block's)" || fail "cc qp 17 window=0: $(ctl cc qp 17)"

# the algorithm: the device's (CC_ALGO, committed) and a QP's own (CC_QP_ALGO)
ctl cc | grep -Eq "^  algo +dcqcn " || fail "algo at reset: $(ctl cc | grep algo)"
ctl cc | grep -Eq "^  base_target +25000 " || fail "Swift's base_target at reset"
ctl cc set algo=swift base_target=40000 ai=2000 || fail "cc set algo=swift"
ctl cc | grep -Eq "^  algo +swift " || fail "algo=swift not set: $(ctl cc | grep algo)"
ctl cc | grep -Eq "^  base_target +40000 .*\(changed\)" || fail "base_target not set"
ctl read CC_ALGO | grep -q "CC_ALGO  *0x00000001" || fail "CC_ALGO: $(ctl read CC_ALGO)"
ctl read CC_SWIFT_AI | grep -q "CC_SWIFT_AI  *0x000007d0" || fail "CC_SWIFT_AI: $(ctl read CC_SWIFT_AI)"
ctl --json cc | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['algo'] == 'swift' and d['swift']['base_target'] == 40000, d
assert d['swift']['max_mdf'] == 500, d
" || fail "cc --json: swift"
ctl cc qp 17 | grep -q "algorithm swift (the block's)" || fail "cc qp 17 algo: $(ctl cc qp 17)"
ctl cc qp 17 algo=dcqcn window=8 || fail "cc qp 17 algo=dcqcn"
ctl cc qp 17 | grep -q "algorithm dcqcn (its own)" || fail "cc qp 17 own algo: $(ctl cc qp 17)"
ctl cc qp 18 | grep -q "algorithm swift (the block's)" || fail "cc qp 18 took 17's algo"
ctl write CC_QP_SELECT 17 || fail "CC_QP_SELECT"
ctl read CC_QP_ALGO | grep -q "CC_QP_ALGO  *0x00000001" || fail "CC_QP_ALGO: $(ctl read CC_QP_ALGO)"
ctl cc qp 17 algo=default window=0 || fail "cc qp 17 algo=default"
ctl cc qp 17 | grep -q "algorithm swift (the block's)" || fail "algo=default: $(ctl cc qp 17)"
ctl cc set algo=dcqcn base_target=25000 ai=1000 || fail "cc set algo=dcqcn"

# bad input: exit 2, nothing changes
set +e
ctl cc set rpg_gd=16 2>"$tmp/err"; [ $? -eq 2 ] || fail "rpg_gd=16 not refused"
grep -q "out of its range" "$tmp/err" || fail "message: $(cat "$tmp/err")"
ctl cc set nope=1 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown knob not refused"
ctl cc set rpg_ai_rate 2>"$tmp/err"; [ $? -eq 2 ] || fail "missing = not refused"
ctl cc set ecn=3 2>"$tmp/err"; [ $? -eq 2 ] || fail "ecn=3 not refused"
ctl cc qp x 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad QPN not refused"
ctl cc qp 17 window=2000000 2>"$tmp/err"; [ $? -eq 2 ] || fail "window past 1 GiB not refused"
ctl cc qp 17 window= 2>"$tmp/err"; [ $? -eq 2 ] || fail "empty window not refused"
ctl cc qp 17 size=3 2>"$tmp/err"; [ $? -eq 2 ] || fail "qp's unknown setting not refused"
ctl cc bogus 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad subcommand not refused"
ctl write CC_RPG_GD 16 2>"$tmp/err"; [ $? -eq 1 ] || fail "CC_RPG_GD=16 written"
ctl cc set algo=timely 2>"$tmp/err"; [ $? -eq 2 ] || fail "algo=timely not refused"
ctl cc set beta=1001 2>"$tmp/err"; [ $? -eq 2 ] || fail "Swift's beta=1001 not refused"
ctl cc qp 17 algo=hpcc 2>"$tmp/err"; [ $? -eq 2 ] || fail "qp algo=hpcc not refused"
ctl write CC_ALGO 2 2>"$tmp/err"; [ $? -eq 1 ] || fail "CC_ALGO=2 written"
ctl write CC_QP_ALGO 3 2>"$tmp/err"; [ $? -eq 1 ] || fail "CC_QP_ALGO=3 written"
set -e
ctl cc | grep -Eq "^  rpg_gd +11 " || fail "rpg_gd changed by a refused set"
ctl cc | grep -Eq "^  rpg_ai_rate +40 " || fail "rpg_ai_rate lost"
ctl cc | grep -Eq "^  algo +dcqcn " || fail "algo changed by a refused set"
ctl cc | grep -Eq "^  beta +800 " || fail "beta changed by a refused set"
echo "rocectl_cc: ok"
