#!/usr/bin/env bash
# rsockets on the drop-in librdmacm.so.1, under roce-run over a veth pair
# between two network namespaces made here (rxe's rsockets are met by the
# interop matrix's rr_rstream and rr_iperf3_rs lines):
#   - Debian's rstream (rdmacm-utils) against itself, every byte checked
#     (-T v): its whole latency and bandwidth sweep; rpoll with
#     non-blocking sockets (-T a -T n); a small buffer and an inline limit
#     below a grant's 16 bytes (grants from the send buffer's control
#     slots, the ring wrapping); rdma_getaddrinfo (-T r);
#   - Debian's rcopy: a file through rsockets, compared;
#   - iperf3, a plain TCP program, through Debian's librspreload;
#   - rstream to a port nobody listens on: "Connection refused";
#   - riostream: iomaps refused in one line.
# Usage: rsockets_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
. "$(dirname "$0")/lib/pair_run.sh"
B=${1:?build dir}
NA=rs-a-$$ NB=rs-b-$$ IA=rsa$$ IB=rsb$$
SA=10.241.9.1
PRELOAD=/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "rsockets_veth: SKIP (needs root and network namespaces)"; exit 0
fi
[ -e "$B/lib/roce/ibverbs/librdmacm.so.1" ] ||
	{ echo "rsockets_veth: SKIP (no drop-in librdmacm: librdmacm-dev missing)"; exit 0; }
rr_have rstream rcopy riostream ||
	{ echo "rsockets_veth: SKIP (no rstream, rcopy or riostream: rdmacm-utils missing)"; exit 0; }
RR_LEAKS=0
rr_setup "$B" || exit 1
RRD=(env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR")
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "$IA" "$IB" $SA/24 10.241.9.2/24 || { echo "FAIL: veth setup"; exit 1; }

# rpair SERVER_CMD... :: CLIENT_CMD...: pair, each side under roce-run
# on its end of the veth
rpair() {
	local s=()
	while [ "$1" != :: ]; do s+=("$1"); shift; done
	shift
	WAIT=${WAIT:-0.8} pair "${RRD[@]}" --netdev "$IA" -- "${s[@]}" :: \
		"${RRD[@]}" --netdev "$IB" -- "$@"
}

# rstream_check NAME LINES: both exit 0, LINES result lines each side
rstream_check() {
	local why=
	[ $crc = 0 ] && [ $src = 0 ] || why+=" exit $src/$crc"
	[ "$(grep -cE '^[0-9a-z_]+ +[0-9]+[kmg]? +[0-9]+[kmg]? +[0-9]+[kmg]? ' "$TMP/cli")" = "$2" ] ||
		why+=" client-lines"
	[ "$(grep -cE '^[0-9a-z_]+ +[0-9]+[kmg]? +[0-9]+[kmg]? +[0-9]+[kmg]? ' "$TMP/srv")" = "$2" ] ||
		why+=" server-lines"
	grep -qiE "mismatch|error|sanitizer" "$TMP/cli" "$TMP/srv" && why+=" error-line"
	result "$1" $why
}

rpair rstream -b $SA -T v :: rstream -s $SA -T v
rstream_check "rstream -T v: latency and bandwidth, 64 B to 1 MiB, every byte checked" 8
rpair rstream -b $SA -T v -T a -T n -S 65536 -C 200 :: \
     rstream -s $SA -T v -T a -T n -S 65536 -C 200
rstream_check "rstream -T a -T n: rpoll, non-blocking sockets" 1
rpair rstream -b $SA -T v -B 4096 -i 8 -S 100000 -C 30 :: \
     rstream -s $SA -T v -B 4096 -i 8 -S 100000 -C 30
rstream_check "rstream -B 4096 -i 8: grants from the control slots, the ring wrapping" 1
rpair rstream -b $SA -T v -T r -S 4096 -C 100 :: rstream -s $SA -T v -T r -S 4096 -C 100
rstream_check "rstream -T r: rdma_getaddrinfo" 1

# ---- rcopy -------------------------------------------------------------------
head -c 3000001 /dev/urandom >"$TMP/file"
ip netns exec "$NA" timeout -k 5 60 "${RRD[@]}" --netdev "$IA" -- rcopy >"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
sleep 0.8
ip netns exec "$NB" timeout -k 5 60 "${RRD[@]}" --netdev "$IB" -- rcopy "$TMP/file" \
	"$SA:$TMP/copy" >"$TMP/cli" 2>&1
crc=$?
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
why=
[ $crc = 0 ] || why+=" exit $crc"
cmp -s "$TMP/file" "$TMP/copy" || why+=" the copy differs"
result "rcopy: 3,000,001 bytes through rsockets, compared" $why

# ---- iperf3 through Debian's preload library ---------------------------------------
if command -v iperf3 >/dev/null && [ -e "$PRELOAD" ]; then
	# the preload library after what roce-run preloads (a sanitized
	# drop-in's runtime), as a user's LD_PRELOAD is kept
	pre="LD_PRELOAD=\"\${LD_PRELOAD:+\$LD_PRELOAD:}$PRELOAD\" exec"
	rpair sh -c "$pre iperf3 -s -1 -B $SA -p 7472" :: \
	      sh -c "$pre iperf3 -c $SA -p 7472 -n 64M -l 65536"
	why=
	[ $crc = 0 ] && [ $src = 0 ] || why+=" exit $src/$crc"
	grep -q "iperf Done" "$TMP/cli" || why+=" client not done"
	# the receiver's count as the test ends: the end comes over the
	# control connection and may pass the data's last bytes, as with TCP
	# iperf3 3.12 skips its -n check on the last send of a burst
	# (iperf_send: "multisend > 1 && bytes_sent >= bytes"), so a burst
	# that reaches 64 MiB on its last-but-one send writes one block more:
	# 64 MiB + 64 KiB, printed "64.1 MBytes"
	grep -qE " 64\.[01] MBytes .* sender" "$TMP/cli" || why+=" not 64 MiB sent"
	grep -qE " (6[0-3]\.[0-9]|64\.[01]) MBytes .* receiver" "$TMP/cli" || why+=" not 60 MiB received"
	result "iperf3 over rsockets (librspreload): 64 MiB" $why
else
	echo "skip iperf3 through librspreload (no iperf3)"
fi

# ---- nobody listening; iomaps ------------------------------------------------------
# a CM on the peer, listening on another port: REJ, "Connection refused"
ip netns exec "$NA" timeout -k 5 60 "${RRD[@]}" --netdev "$IA" -- rstream -b $SA -S 64 -C 1 \
	-p 7473 >"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
sleep 0.8
ip netns exec "$NB" timeout -k 5 60 "${RRD[@]}" --netdev "$IB" -- rstream -s $SA -S 64 -C 1 \
	-p 7999 >"$TMP/cli" 2>&1
crc=$?
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
why=
[ $crc != 0 ] || why+=" exit 0"
grep -q "Connection refused" "$TMP/cli" || why+=" no 'Connection refused'"
result "rstream to a port nobody listens on: Connection refused" $why
rpair riostream -b $SA -S 4096 -C 1 :: riostream -s $SA -S 4096 -C 1
why=
[ $crc != 0 ] || [ $src != 0 ] || why+=" exit 0/0"
grep -q "^librdmacm (roce-run): riomap: iomaps (direct placement into a mapped buffer) are not supported" \
	"$TMP/srv" "$TMP/cli" || why+=" no riomap line"
result "riostream: iomaps refused in one line" $why

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
