#!/usr/bin/env bash
# Our frames for the exchange of rxe's golden UD capture
# (tests/vectors/captures/rxe_ud_pingpong.pcap: ibv_ud_pingpong -s 512
# -n 5, port MTU 1024, rxe on both sides) decode in tshark to the same
# fields, packet for packet: roce-ud-pingpong on both sides, in two network
# namespaces made here, each joined by a veth to a bridge in a third one
# (as the golden capture was taken on the bridge between two guests: one
# point that sees both directions in the order they happened), and both
# captures reduced by tests/vectors/exchange_fields.py (directions, QPs
# and PSN offsets instead of the numbers each run picks; the DETH Q_Key,
# and its source QP as the QP the other side sends to). Our capture also
# passes roce-pcap --verify.
# Usage: ud_golden.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir} S=${2:?source dir}
PP=$B/tools/roce-ud-pingpong
NA=udg-a-$$ NB=udg-b-$$ NW=udg-w-$$
netns_script_init "$NA" "$NB" "$NW"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tcpdump >/dev/null; then
	echo "ud_golden: SKIP (needs root, network namespaces and tcpdump)"
	exit 0
fi
command -v tshark >/dev/null || { echo "FAIL: tshark not installed (scripts/install-deps)"; exit 1; }
# NA:ga <-> NW:wa, NB:gb <-> NW:wb, wa and wb on the bridge br0 in NW
setup() {
	ip netns add "$NA" && ip netns add "$NB" && ip netns add "$NW" &&
	ip -n "$NW" link add br0 type bridge &&
	ip link add "ga$$" netns "$NA" type veth peer name wa netns "$NW" &&
	ip link add "gb$$" netns "$NB" type veth peer name wb netns "$NW" &&
	ip -n "$NW" link set wa master br0 && ip -n "$NW" link set wb master br0 &&
	ip -n "$NW" link set wa up && ip -n "$NW" link set wb up &&
	ip -n "$NW" link set br0 up &&
	ip -n "$NA" addr add 10.231.11.1/24 dev "ga$$" && ip -n "$NA" link set "ga$$" up &&
	ip -n "$NB" addr add 10.231.11.2/24 dev "gb$$" && ip -n "$NB" link set "gb$$" up &&
	ip -n "$NA" link set lo up && ip -n "$NB" link set lo up
}
setup || { echo "FAIL: namespaces, veths and bridge"; exit 1; }

# --immediate-mode: each frame reaches tcpdump (and -U the file) at once,
# not when a ring block fills or times out after the run; its ring then
# has one slot per snapshot length: -s 2048 and 4 MiB (-B) give it 2000
# (the default 256 KiB snapshot, 8: a burst of 8 frames drops some)
ip netns exec "$NW" timeout 60 tcpdump --immediate-mode -U -n -s 2048 -B 4096 -i br0 \
	-w "$TMP/ours.pcap" udp port 4791 \
	>"$TMP/tcpdump.log" 2>&1 &
tp=$!
pids+=("$tp")
for _ in $(seq 50); do grep -q 'listening on' "$TMP/tcpdump.log" && break; sleep 0.1; done
ip netns exec "$NA" timeout 60 "$PP" --netdev "ga$$" --timeout 20 -s 512 -n 5 \
	>"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
ip netns exec "$NB" timeout 60 "$PP" --netdev "gb$$" --timeout 20 -s 512 -n 5 10.231.11.1 \
	>"$TMP/cli" 2>&1
crc=$?
wait "$sp"
src=$?
# stop the capture once its file has stopped growing (up to 10 s): on a
# busy machine tcpdump may still be reading the last frames
prev=-1 same=0
for _ in $(seq 50); do
	sleep 0.2
	n=$(tcpdump -r "$TMP/ours.pcap" 2>/dev/null | wc -l)
	if [ "$n" = "$prev" ]; then same=$((same + 1)); else same=0; fi
	[ $same -ge 3 ] && break
	prev=$n
done
kill -INT "$tp" 2>/dev/null
wait "$tp"
if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
	echo "FAIL: the exchange (client rc=$crc, server rc=$src)"
	sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
	exit 1
fi
python3 "$S/tests/vectors/exchange_fields.py" "$S/tests/vectors/captures/rxe_ud_pingpong.pcap" \
	>"$TMP/rxe.tsv" || { echo "FAIL: the golden capture's fields"; exit 1; }
python3 "$S/tests/vectors/exchange_fields.py" "$TMP/ours.pcap" >"$TMP/ours.tsv" ||
	{ echo "FAIL: our capture's fields"; exit 1; }
n=$(wc -l <"$TMP/rxe.tsv")
if [ "$n" -ne 10 ]; then
	echo "FAIL: the golden capture has $n UD packets, not 10"; exit 1
fi
if ! diff -u "$TMP/rxe.tsv" "$TMP/ours.tsv" >"$TMP/diff"; then
	echo "FAIL: our frames differ from rxe's (- rxe, + ours):"; head -30 "$TMP/diff"
	sed 's/^/  tcpdump| /' "$TMP/tcpdump.log"; sed 's/^/  client| /' "$TMP/cli"
	sed 's/^/  server| /' "$TMP/srv"
	exit 1
fi
if ! "$B/tools/roce-pcap" --verify "$TMP/ours.pcap" >"$TMP/verify" 2>&1; then
	echo "FAIL: roce-pcap --verify on our capture"; tail -5 "$TMP/verify"; exit 1
fi
echo "ok: our $n UD packets of ibv_ud_pingpong's exchange match rxe's field for field"
