#!/usr/bin/env bash
# roce-pcap: --verify flags exactly the two corrupted packets, the listing
# shows the fields, and bad arguments get clear errors.
set -euo pipefail
build=$1 src=$2
tool=$build/tools/roce-pcap
caps=$src/tests/vectors/captures
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# every capture but one verifies clean
for f in "$caps"/*.pcap; do
  [ "$(basename "$f")" = host_peer_rc_pingpong.pcap ] && continue
  "$tool" --verify "$f" > "$tmp/out" || fail "verify $(basename "$f"): $(cat "$tmp/out")"
  grep -q ': ok$' "$tmp/out" || fail "no ok summary for $f"
done
# the two deliberately corrupted ones are named
set +e
"$tool" --verify "$caps/host_peer_rc_pingpong.pcap" > "$tmp/out"; rc=$?
set -e
[ $rc -eq 1 ] || fail "verify of a corrupted capture exited $rc, want 1"
grep -q 'frame 105 RC_SEND_FIRST psn=13522531: bad ICRC (wire 88e15878, computed 564ce697)' "$tmp/out" || fail "frame 105 not reported: $(cat "$tmp/out")"
grep -q 'frame 106 .*bad ICRC' "$tmp/out" || fail "frame 106 not reported"
[ "$(grep -c 'bad ICRC (' "$tmp/out")" -eq 2 ] || fail "more than 2 bad packets reported"

# the listing
"$tool" "$caps/rxe_atomic_bw.pcap" > "$tmp/list"
grep -q '^20 10.77.0.12:[0-9]* > 10.77.0.11 RC_FETCH_ADD dqpn=0x00001f psn=10035942 .*rkey=0x0000109b swap_add=0x1 compare=0x0 paylen=0 icrc=ok$' "$tmp/list" \
  || fail "unexpected listing: $(head -2 "$tmp/list")"
grep -q 'RC_ATOMIC_ACK .* ACK(credits=31) syndrome=0x1f msn=1 orig=0x' "$tmp/list" || fail "atomic ack line"
"$tool" "$caps/rxe_write_bw_loss.pcap" | grep 'RC_ACK .* NAK(psn_seq_err) syndrome=0x60' >/dev/null || fail "NAK not decoded"
"$tool" "$caps/rxe_ud_pingpong.pcap" | grep 'UD_SEND_ONLY .*qkey=0x11111111 sqpn=0x000021 .*paylen=512' >/dev/null || fail "UD line"
[ "$("$tool" "$caps/rxe_atomic_bw.pcap" | wc -l)" -eq 80 ] || fail "atomic capture should list 80 RoCE packets"
[ "$("$tool" --all "$caps/rxe_atomic_bw.pcap" | wc -l)" -eq 158 ] || fail "--all should list 158 frames"

# errors
set +e
"$tool" > /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "no file: want exit 2"
grep -q 'no capture file' "$tmp/err" || fail "no-file message"
"$tool" /nonexistent.pcap 2> "$tmp/err"; [ $? -eq 2 ] || fail "missing file: want exit 2"
grep -q '/nonexistent.pcap' "$tmp/err" || fail "missing-file message"
echo garbage > "$tmp/bad.pcap"
"$tool" --verify "$tmp/bad.pcap" 2> "$tmp/err"; [ $? -eq 2 ] || fail "garbage file: want exit 2"
"$tool" --port 70000 "$caps/rxe_atomic_bw.pcap" 2> "$tmp/err"; [ $? -eq 2 ] || fail "bad port: want exit 2"
grep -q "bad port '70000'" "$tmp/err" || fail "bad-port message"
"$tool" --bogus 2> /dev/null; [ $? -eq 2 ] || fail "unknown option: want exit 2"
# a capture cut in the middle of a frame
head -c 5000 "$caps/rxe_atomic_bw.pcap" > "$tmp/cut.pcap"
"$tool" --verify "$tmp/cut.pcap" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -ne 0 ] || fail "truncated capture verified clean"
"$tool" --help | grep -- '--verify' >/dev/null || fail "--help"
echo ok
