#!/usr/bin/env bash
# The mmap bus against a file-backed register window: roced --mmap FILE
# mirrors its model device into FILE; rocectl --mmap FILE runs the power-on
# sequence and the regression check through volatile loads and stores on
# the window, and the socket view of the same device agrees. SIGINT shuts
# roced down cleanly, after which the window is refused.
# Usage: roced_mmap.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
ctl=$build/tools/rocectl
conf=$src/examples/loopback.conf
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/roced.sh"

sock=$tmp/roced.sock win=$tmp/window
roced_start "$build" "$sock" --mmap "$win" --link-delay-us 50000
[ "$(stat -c %s "$win")" -eq 12288 ] || fail "window size $(stat -c %s "$win")"

mm() { "$ctl" --mmap "$win" "$@"; }
so() { "$ctl" --socket "$sock" "$@"; }

mm info | grep -q "bus          mmap" || fail "mmap info"
mm init "$conf" >"$tmp/out" || fail "init over mmap: $(cat "$tmp/out")"
mm verify "$conf" >/dev/null || fail "verify over mmap"
so verify "$conf" >/dev/null || fail "verify over socket after an mmap init"
mm qp 18 | grep -q "dest_qpn             0x000011" || fail "qp 18 read back"
mm --json mr 1 | grep -q '"rkey":348' || fail "mr 1 read back"
"$ctl" --mmap "$win@0" read CTRL | grep -q "ENGINE_EN=1 LOOPBACK=1" || fail "CTRL"

# A change made over the socket shows in the window and fails verify there.
# The mirror refreshes the window every few milliseconds: give it time.
so write MAC_HIGH 0x0bad
seen=
for _ in $(seq 1 100); do
	if ! mm verify "$conf" >"$tmp/out" 2>/dev/null; then seen=1; break; fi
	sleep 0.02
done
[ -n "$seen" ] || fail "verify passed over mmap"
grep -q "MISMATCH MAC_HIGH .*expected 0x00000200 actual 0x00000bad" "$tmp/out" \
	|| fail "diff: $(cat "$tmp/out")"
# Errors the window can see; and one it cannot (a dropped write).
if mm read 0x6 2>"$tmp/err"; then fail "misaligned read accepted"; fi
grep -q decerr "$tmp/err" || fail "misaligned: $(cat "$tmp/err")"
mm write DEV_ID 0 || fail "a raw window cannot refuse a write"
mm read DEV_ID | grep -q 0x52434532 || fail "DEV_ID changed"
mm counters rx_lost_link_down >/dev/null || fail "counters over mmap"
mm counters --watch 0.05 --count 2 >/dev/null || fail "watch over mmap"

# SIGINT: clean exit, socket removed, the window withdrawn.
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] || fail "roced exited with $rc on SIGINT"
[ ! -e "$sock" ] || fail "socket left behind"
if mm read CTRL 2>"$tmp/err"; then fail "window still accepted"; fi
grep -q "no live mirror" "$tmp/err" || fail "stale window: $(cat "$tmp/err")"
echo "roced mmap: ok"
