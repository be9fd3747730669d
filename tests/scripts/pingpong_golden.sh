#!/usr/bin/env bash
# Our frames for the exchanges of rxe's golden pingpong captures decode in
# tshark to the same fields, packet for packet:
#   uc: rxe_uc_pingpong.pcap, ibv_uc_pingpong -s 4096 -n 5 at path MTU 1024
#       (40 packets), against roce-uc-pingpong on both sides;
#   ud: rxe_ud_pingpong.pcap, ibv_ud_pingpong -s 512 -n 5, port MTU 1024
#       (10 packets), against roce-ud-pingpong on both sides.
# rxe ran on both sides of each capture, taken on the bridge between two
# guests: one point that sees both directions in the order they happened.
# Ours run in two network namespaces made here, each joined by a veth to a
# bridge in a third one, captured there; both captures are reduced by
# tests/vectors/exchange_fields.py (directions, QPs and PSN offsets instead
# of the numbers each run picks; for UD the DETH Q_Key, and its source QP
# as the QP the other side sends to). Our captures also pass roce-pcap
# --verify.
# Usage: pingpong_golden.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir} S=${2:?source dir}
NA=ppg-a-$$ NB=ppg-b-$$ NW=ppg-w-$$
netns_script_init "$NA" "$NB" "$NW"
fails=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tcpdump >/dev/null; then
	echo "pingpong_golden: SKIP (needs root, network namespaces and tcpdump)"
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
	ip -n "$NA" addr add 10.231.10.1/24 dev "ga$$" && ip -n "$NA" link set "ga$$" up &&
	ip -n "$NB" addr add 10.231.10.2/24 dev "gb$$" && ip -n "$NB" link set "gb$$" up &&
	ip -n "$NA" link set lo up && ip -n "$NB" link set lo up
}
setup || { echo "FAIL: namespaces, veths and bridge"; exit 1; }

# golden KIND SIZE PACKETS: roce-KIND-pingpong -s SIZE -n 5 on both sides,
# captured on the bridge, against rxe_KIND_pingpong.pcap of PACKETS packets
golden() {
	local kind=$1 size=$2 want=$3 KIND pp tp sp crc src prev same n
	KIND=$(tr a-z A-Z <<<"$kind")
	pp=$B/tools/roce-$kind-pingpong
	rm -f "$TMP/ours.pcap"
	# --immediate-mode: each frame reaches tcpdump (and -U the file) at
	# once, not when a ring block fills or times out after the run; its
	# ring then has one slot per snapshot length: -s 2048 and 4 MiB (-B)
	# give it 2000 (the default 256 KiB snapshot, 8: a burst of 8 frames
	# drops some)
	ip netns exec "$NW" timeout -k 5 60 tcpdump --immediate-mode -U -n -s 2048 -B 4096 -i br0 \
		-w "$TMP/ours.pcap" udp port 4791 >"$TMP/tcpdump.log" 2>&1 &
	tp=$!
	pids+=("$tp")
	for _ in $(seq 50); do grep -q 'listening on' "$TMP/tcpdump.log" && break; sleep 0.1; done
	ip netns exec "$NA" timeout -k 5 60 "$pp" --netdev "ga$$" --timeout 20 -s "$size" -n 5 \
		>"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 60 "$pp" --netdev "gb$$" --timeout 20 -s "$size" -n 5 \
		10.231.10.1 >"$TMP/cli" 2>&1
	crc=$?
	wait "$sp"
	src=$?
	# stop the capture once its file has stopped growing (up to 10 s): on
	# a busy machine tcpdump may still be reading the last frames
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
		echo "FAIL $kind: the exchange (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
		return 1
	fi
	python3 "$S/tests/vectors/exchange_fields.py" \
		"$S/tests/vectors/captures/rxe_${kind}_pingpong.pcap" >"$TMP/rxe.tsv" ||
		{ echo "FAIL $kind: the golden capture's fields"; return 1; }
	python3 "$S/tests/vectors/exchange_fields.py" "$TMP/ours.pcap" >"$TMP/ours.tsv" ||
		{ echo "FAIL $kind: our capture's fields"; return 1; }
	n=$(wc -l <"$TMP/rxe.tsv")
	if [ "$n" -ne "$want" ]; then
		echo "FAIL $kind: the golden capture has $n $KIND packets, not $want"; return 1
	fi
	if ! diff -u "$TMP/rxe.tsv" "$TMP/ours.tsv" >"$TMP/diff"; then
		echo "FAIL $kind: our frames differ from rxe's (- rxe, + ours):"; head -30 "$TMP/diff"
		sed 's/^/  tcpdump| /' "$TMP/tcpdump.log"; sed 's/^/  client| /' "$TMP/cli"
		sed 's/^/  server| /' "$TMP/srv"
		return 1
	fi
	if ! "$B/tools/roce-pcap" --verify "$TMP/ours.pcap" >"$TMP/verify" 2>&1; then
		echo "FAIL $kind: roce-pcap --verify on our capture"; tail -5 "$TMP/verify"; return 1
	fi
	echo "ok: our $n $KIND packets of ibv_${kind}_pingpong's exchange match rxe's field for field"
}

golden uc 4096 40 || fails=$((fails + 1))
golden ud 512 10 || fails=$((fails + 1))
[ $fails -eq 0 ]
