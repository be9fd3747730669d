#!/usr/bin/env bash
# roce-srq-pingpong client against roce-srq-pingpong server over a veth
# pair between two network namespaces made here: exit codes and
# ibv_srq_pingpong's output (a local and a remote address line per QP,
# the two result lines) with -c on 1, 4 and 16 QPs, small and multi-packet
# messages, a receive depth that makes the SRQ refill often, -e on both
# sides and on one; then the command-line errors (the original's checks:
# too many QPs for the receive depth, 255 QPs or more; bad values) and
# --help.
# Usage: srq_pingpong_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
SP=$B/tools/roce-srq-pingpong
NA=rsp-a-$$ NB=rsp-b-$$
fails=0 pass=0
SRV=() CLI=()           # extra arguments of the server's, the client's side
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "srq_pingpong_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
netns_pair "$NA" "$NB" "sa$$" "sb$$" 10.231.9.1/24 10.231.9.2/24 || { echo "FAIL: veth setup"; exit 1; }

# run QPS ARGS...: server in NA, client in NB, -q QPS; both must pass and
# print QPS local and QPS remote address lines
run() {
	local q=$1; shift
	local name="-q $q $*${SRV[*]:+ [server ${SRV[*]}]}${CLI[*]:+ [client ${CLI[*]}]}"
	ip netns exec "$NA" timeout 60 "$SP" --netdev "sa$$" --timeout 20 -q "$q" "$@" \
		${SRV[@]+"${SRV[@]}"} >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout 60 "$SP" --netdev "sb$$" --timeout 20 -q "$q" "$@" \
		${CLI[@]+"${CLI[@]}"} 10.231.9.1 >"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$? ok=1
	[ $crc -eq 0 ] && [ $src -eq 0 ] || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		[ "$(grep -cE '^  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:10\.231\.9\.[12]$' "$f")" = "$q" ] || ok=0
		[ "$(grep -cE '^  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:10\.231\.9\.[12]$' "$f")" = "$q" ] || ok=0
		grep -qE '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$' "$f" || ok=0
		grep -qE '^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' "$f" || ok=0
	done
	# the remote QPNs one side prints are the local ones the other printed
	diff <(sed -n 's/^  local address:  .*QPN \(0x[0-9a-f]*\),.*/\1/p' "$TMP/srv") \
	     <(sed -n 's/^  remote address: .*QPN \(0x[0-9a-f]*\),.*/\1/p' "$TMP/cli") >/dev/null || ok=0
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli" | tail -20; sed 's/^/  server| /' "$TMP/srv" | tail -20
	fi
}

run 1 -c -s 64 -n 100
run 4 -c -s 4096 -n 400
run 16 -c -s 10000 -n 400 -m 1024
run 4 -c -s 2048 -n 400 -r 8
run 4 -c -e -s 4096 -n 400
SRV=(-e) CLI=()
run 4 -c -s 4096 -n 200
SRV=() CLI=(-e)
run 4 -c -s 4096 -n 200
SRV=() CLI=()

# the original's checks and bad values: exit 2, a message
expect "too many QPs for the receive depth" 2 "rx_depth 4 is too small for 8 QPs" \
	"$SP" --netdev "sa$$" -q 8 -r 4
expect "256 QPs" 2 "num_qp 256 must be less than 255" "$SP" --netdev "sa$$" -q 256 -r 500
expect "-q 0" 2 "bad number of QPs '0'" "$SP" --netdev "sa$$" -q 0
expect "bad MTU" 2 "bad MTU" "$SP" --netdev "sa$$" -m 1000
expect "no --netdev" 2 "give the interface with --netdev" "$SP"
expect "unknown option" 2 "unknown option" "$SP" --netdev "sa$$" -Z
expect "--help" 0 "-q, --num-qp=<num>" "$SP" --help

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
