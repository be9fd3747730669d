#!/usr/bin/env bash
# Our frames for the exchange of rxe's golden UC capture
# (tests/vectors/captures/rxe_uc_pingpong.pcap: ibv_uc_pingpong -s 4096
# -n 5 at path MTU 1024, rxe on both sides) decode in tshark to the same
# fields, packet for packet: roce-uc-pingpong on both sides over a veth
# between two network namespaces made here, captured at both ends, and both
# captures reduced by tests/vectors/exchange_fields.py (directions, QPs
# and PSN offsets instead of the numbers each run picks). Our capture also
# passes roce-pcap --verify.
# Usage: uc_golden.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir} S=${2:?source dir}
PP=$B/tools/roce-uc-pingpong
NA=ucg-a-$$ NB=ucg-b-$$
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tcpdump >/dev/null; then
	echo "uc_golden: SKIP (needs root, network namespaces and tcpdump)"
	exit 0
fi
command -v tshark >/dev/null && command -v mergecap >/dev/null ||
	{ echo "FAIL: tshark or mergecap not installed (scripts/install-deps)"; exit 1; }
netns_pair "$NA" "$NB" "ga$$" "gb$$" 10.231.10.1/24 10.231.10.2/24 || { echo "FAIL: veth setup"; exit 1; }

# what each end receives (an AF_PACKET sender's own frames may bypass the
# taps of its end), merged in time order
tps=()
for end in "$NA:ga$$:a" "$NB:gb$$:b"; do
	IFS=: read -r ns ifc tag <<<"$end"
	ip netns exec "$ns" timeout 60 tcpdump -U -n -Q in -i "$ifc" -w "$TMP/in-$tag.pcap" \
		udp port 4791 >"$TMP/tcpdump-$tag.log" 2>&1 &
	tps+=($!)
	pids+=($!)
done
for tag in a b; do
	for _ in $(seq 50); do grep -q 'listening on' "$TMP/tcpdump-$tag.log" && break; sleep 0.1; done
done
ip netns exec "$NA" timeout 60 "$PP" --netdev "ga$$" --timeout 20 -s 4096 -n 5 \
	>"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
ip netns exec "$NB" timeout 60 "$PP" --netdev "gb$$" --timeout 20 -s 4096 -n 5 10.231.10.1 \
	>"$TMP/cli" 2>&1
crc=$?
wait "$sp"
src=$?
sleep 0.5
kill -INT "${tps[@]}" 2>/dev/null
wait "${tps[@]}"
mergecap -w "$TMP/ours.pcap" "$TMP/in-a.pcap" "$TMP/in-b.pcap" ||
	{ echo "FAIL: mergecap"; exit 1; }
if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
	echo "FAIL: the exchange (client rc=$crc, server rc=$src)"
	sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
	exit 1
fi
python3 "$S/tests/vectors/exchange_fields.py" "$S/tests/vectors/captures/rxe_uc_pingpong.pcap" \
	>"$TMP/rxe.tsv" || { echo "FAIL: the golden capture's fields"; exit 1; }
python3 "$S/tests/vectors/exchange_fields.py" "$TMP/ours.pcap" >"$TMP/ours.tsv" ||
	{ echo "FAIL: our capture's fields"; exit 1; }
n=$(wc -l <"$TMP/rxe.tsv")
if [ "$n" -ne 40 ]; then
	echo "FAIL: the golden capture has $n UC packets, not 40"; exit 1
fi
if ! diff -u "$TMP/rxe.tsv" "$TMP/ours.tsv" >"$TMP/diff"; then
	echo "FAIL: our frames differ from rxe's (- rxe, + ours):"; head -30 "$TMP/diff"; exit 1
fi
if ! "$B/tools/roce-pcap" --verify "$TMP/ours.pcap" >"$TMP/verify" 2>&1; then
	echo "FAIL: roce-pcap --verify on our capture"; tail -5 "$TMP/verify"; exit 1
fi
echo "ok: our $n UC packets of ibv_uc_pingpong's exchange match rxe's field for field"
