#!/usr/bin/env bash
# The seed's register regression check through the tools: start roced on a
# temporary socket, rocectl init, rocectl verify passes; corrupt a device
# register and a QP entry, verify fails and names each; init again restores.
# Usage: rocectl_verify.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
ctl=$build/tools/rocectl
conf=$src/examples/two-node.conf
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/roced.sh"

sock=$tmp/roced.sock
roced_start "$build" "$sock"
ctl() { "$ctl" --socket "$sock" "$@"; }

ctl init "$conf" >"$tmp/out" || fail "init: $(cat "$tmp/out")"
grep -q "device up, 2 QP(s), 2 MR(s)" "$tmp/out" || fail "init output: $(cat "$tmp/out")"
ctl verify "$conf" >"$tmp/out" || fail "verify after init: $(cat "$tmp/out")"
grep -q "every register matches" "$tmp/out" || fail "verify output"
ctl read CTRL | grep -q "ENGINE_EN=1" || fail "engine not enabled"
ctl read STATUS | grep -q "RUNNING=1" || fail "engine not running"

# A device register.
ctl write PEER_IP 0x0a000063
if ctl verify "$conf" >"$tmp/out" 2>"$tmp/err"; then fail "verify passed on a corrupted PEER_IP"; fi
grep -q "MISMATCH PEER_IP .*expected 0x0a000002 actual 0x0a000063" "$tmp/out" \
	|| fail "diff does not name PEER_IP: $(cat "$tmp/out")"
[ "$(grep -c MISMATCH "$tmp/out")" -eq 1 ] || fail "extra differences: $(cat "$tmp/out")"
grep -q "1 register(s) differ" "$tmp/err" || fail "summary: $(cat "$tmp/err")"

# JSON form of the same diff.
if ctl --json verify "$conf" >"$tmp/json" 2>/dev/null; then fail "json verify passed"; fi
grep -q '"register":"PEER_IP"' "$tmp/json" || fail "json: $(cat "$tmp/json")"
grep -q '"ok":false' "$tmp/json" || fail "json ok flag: $(cat "$tmp/json")"

# A QP entry, through its window: LOAD, change one shadow register, COMMIT.
ctl qp 17 >/dev/null
ctl write QP_DEST_QPN 0x55
ctl write QP_COMMIT 1
ctl read QP_CMD_STATUS | grep -q "0x00000000" || fail "commit rejected"
if ctl verify "$conf" >"$tmp/out" 2>/dev/null; then fail "verify passed on a corrupted QP"; fi
grep -q "MISMATCH QP\[17\].QP_DEST_QPN .*expected 0x00000012 actual 0x00000055" "$tmp/out" \
	|| fail "diff does not name QP[17].QP_DEST_QPN: $(cat "$tmp/out")"

# An MR entry invalidated behind the driver's back.
ctl write MR_INDEX 4
ctl write MR_ACCESS 0
ctl write MR_COMMIT 1
if ctl verify "$conf" >"$tmp/out" 2>/dev/null; then fail "verify passed on an invalid MR"; fi
grep -q "MISMATCH MR\[4\].MR_ACCESS" "$tmp/out" || fail "diff does not name MR[4]: $(cat "$tmp/out")"

# init again restores everything.
ctl init "$conf" >/dev/null
ctl verify "$conf" >/dev/null || fail "verify after re-init"
ctl --json verify "$conf" | grep -q '"diffs":\[\],"ok":true' || fail "json verify after re-init"

# SIGTERM: roced exits cleanly and removes its socket.
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || fail "roced exited with $rc on SIGTERM"
[ ! -e "$sock" ] || fail "roced left $sock behind"
echo "rocectl verify: ok"
