#!/usr/bin/env bash
# rocectl stage and rocectl ddr against roced: a key loaded from a 64-byte
# file shows as its slot only (no word of the key in stage, dump or a read
# of the key words, either byte order), a 63-byte file and an equal-halves
# key refused in one line with a non-zero exit, the slot cleared; an MR
# bound through the MR window listed with its chain; the stage counters;
# bytes written to the DDR through the debug port read back (hex dump and
# -o FILE), a range past the DDR's end refused cleanly, the mmap bus
# saying it has no DDR port.
# Usage: rocectl_stage.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
ctl=$build/tools/rocectl
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/roced.sh"

sock=$tmp/roced.sock win=$tmp/window
roced_start "$build" "$sock" --mem-size 64K --mmap "$win"
ctl() { "$ctl" --socket "$sock" "$@"; }
# exit status and stderr of a command expected to fail
refused() { set +e; "$@" >"$tmp/rout" 2>"$tmp/err"; rc=$?; set -e; }

# A key with no zero word, so each of its words would stand out.
python3 -c "
import os, sys
k = b''
while len(k) < 64:
    w = os.urandom(4)
    if 0 not in w:
        k += w
sys.stdout.buffer.write(k)" >"$tmp/key"
[ "$(stat -c %s "$tmp/key")" -eq 64 ] || fail "key file"

ctl stage >"$tmp/out" || fail "stage: $(cat "$tmp/out")"
grep -q "^key slots loaded: none" "$tmp/out" || fail "slots at reset: $(head -3 "$tmp/out")"
ctl stage key load 3 "$tmp/key" || fail "key load"
ctl stage >"$tmp/stage"
grep -q "^key slots loaded: 3$" "$tmp/stage" || fail "slot 3 not shown loaded: $(head -3 "$tmp/stage")"
ctl --json stage >"$tmp/stage.json"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['keys_loaded'] == [3], d
assert all(k.startswith('stage_') for k in d['counters']) and len(d['counters']) >= 10, d
" "$tmp/stage.json" || fail "stage --json"
ctl dump >"$tmp/dump" || fail "dump"
for n in $(seq 0 15); do ctl read "STAGE_KEY_$n"; done >"$tmp/keyregs" || fail "read STAGE_KEY_n"
grep -q "STAGE_KEY_LOADED  *0x00000008" "$tmp/dump" || fail "STAGE_KEY_LOADED in dump"
# Every key word as a register would show it and in the file's order.
for w in $(od -An -v -tx4 -w4 "$tmp/key") $(od -An -v -tx1 -w4 "$tmp/key" | tr -d ' '); do
	for f in stage stage.json dump keyregs; do
		grep -qi "$w" "$tmp/$f" && fail "key word $w in $f"
	done
done
grep -qi "$(od -An -v -tx1 "$tmp/key" | tr -d ' \n' | cut -c1-8)" "$tmp/stage" "$tmp/dump" &&
	fail "key bytes shown"

# A short file and an equal-halves key: one line, non-zero, slot 4 empty.
head -c 63 "$tmp/key" >"$tmp/key63"
refused ctl stage key load 4 "$tmp/key63"
[ "$rc" -ne 0 ] || fail "63-byte key accepted"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "63-byte key: not one line: $(cat "$tmp/err")"
grep -q "shorter than the 64 bytes" "$tmp/err" || fail "63-byte key: $(cat "$tmp/err")"
{ head -c 32 "$tmp/key"; head -c 32 "$tmp/key"; } >"$tmp/keyeq"
refused ctl stage key load 4 "$tmp/keyeq"
[ "$rc" -eq 1 ] || fail "equal-halves key: exit $rc"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "equal halves: not one line: $(cat "$tmp/err")"
grep -q "key slot 4: LOAD refused: inval" "$tmp/err" || fail "equal halves: $(cat "$tmp/err")"
refused ctl stage key load 16 "$tmp/key"
[ "$rc" -eq 2 ] || fail "slot 16: exit $rc"
ctl stage | grep -q "^key slots loaded: 3$" || fail "a refused load changed the slots"

# An MR bound through the MR window (xts then pi, 4 KiB units).
for kv in MR_INDEX=5 MR_ACCESS=0x80000000 MR_PA_LOW=0x1000 MR_LEN_LOW=0x2000 \
	  MR_RKEY=0x500 MR_LKEY=0x500 MR_STAGE=0x01030032 MR_STAGE_TAG=0xbeef \
	  MR_DUN_LOW=0x100 MR_PI_PA_LOW=0x8000 MR_COMMIT=1; do
	ctl write "${kv%=*}" "${kv#*=}" || fail "write $kv"
done
ctl read MR_CMD_STATUS | grep -q "0x00000000" || fail "MR 5 not committed"
ctl stage >"$tmp/stage"
grep -Eq "^  mr 5 +xts,pi +unit 4096 key slot 3 dun 0x100 pi 0x8000 app tag 0xbeef$" \
	"$tmp/stage" || fail "MR 5's binding: $(cat "$tmp/stage")"
[ "$(grep -c "^  mr " "$tmp/stage")" -eq 1 ] || fail "other MRs listed"
for c in stage_xts_encrypted stage_pi_verified stage_dedup_saved stage_errors; do
	grep -Eq "^  $c +0$" "$tmp/stage" || fail "counter $c: $(cat "$tmp/stage")"
done

ctl stage key clear 3 || fail "key clear"
ctl stage | grep -q "^key slots loaded: none" || fail "slot 3 still loaded"
refused ctl stage nope
[ "$rc" -eq 2 ] || fail "stage nope: exit $rc"
"$ctl" stage --help | grep -q "stage key load SLOT FILE" || fail "stage --help"

# The DDR port: unaligned bytes in, read back around them.
ctl ddr write 0x101 de ad be ef 01 || fail "ddr write"
ctl ddr read 0xfe 12 >"$tmp/out" || fail "ddr read"
grep -q "^000000fe: 0000 00de adbe ef01 0000 0000  " "$tmp/out" || fail "ddr read: $(cat "$tmp/out")"
ctl ddr read 0x101 5 -o "$tmp/bytes" || fail "ddr read -o"
[ "$(od -An -tx1 "$tmp/bytes" | tr -d ' \n')" = "deadbeef01" ] || fail "ddr read -o: $(od -An -tx1 "$tmp/bytes")"
head -c 5000 /dev/urandom >"$tmp/blob"
ctl ddr write 0x2003 -i "$tmp/blob" || fail "ddr write -i"
ctl ddr read 0x2003 5000 -o "$tmp/blob.back" || fail "ddr read 5000"
cmp -s "$tmp/blob" "$tmp/blob.back" || fail "5000 bytes through two chunks differ"
ctl ddr read 0xfff0 16 >/dev/null || fail "the last 16 bytes"
refused ctl ddr read 0xfff0 17
[ "$rc" -eq 1 ] || fail "read past the DDR: exit $rc"
grep -q "past the end of the DDR (65536 bytes)" "$tmp/err" || fail "past end: $(cat "$tmp/err")"
refused ctl ddr write 0xffff 0102
[ "$rc" -eq 1 ] || fail "write past the DDR: exit $rc"
refused ctl ddr write 0 abc
[ "$rc" -eq 2 ] || fail "odd hex digits: exit $rc"
refused "$ctl" --mmap "$win" ddr read 0 4
[ "$rc" -eq 1 ] || fail "ddr over mmap: exit $rc"
grep -q "not supported on this bus (mmap)" "$tmp/err" || fail "mmap: $(cat "$tmp/err")"
kill -0 "$pid" || fail "roced died"
ctl ddr read 0x101 5 | grep -q "dead beef 01" || fail "ddr after the errors"
echo "rocectl_stage: ok"
