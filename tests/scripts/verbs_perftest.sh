#!/usr/bin/env bash
# Debian's perftest 4.5, unmodified, between two roce-run instances over
# a veth pair in two namespaces made here: ib_write_bw, ib_read_bw,
# ib_send_bw, ib_atomic_bw (both atomics), ib_write_lat, ib_read_lat,
# ib_send_lat, and ib_write_bw on UC and ib_send_bw on UD. Exit status 0
# on both sides, the client's result line for the size and iterations
# asked, perftest's exchange of our IPv4 GID (-x 1), and no verb refused.
# Under ASan the drop-in's leaks are verbs_pingpong.sh's to find: perftest
# leaks its own memory at exit.
# Usage: verbs_perftest.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=vpt-a-$$ NB=vpt-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_perftest: SKIP (needs root and network namespaces)"; exit 0
fi
if ! rr_have ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat ib_read_lat ib_send_lat; then
	echo "verbs_perftest: SKIP (perftest not installed)"; exit 0
fi
RR_LEAKS=0      # perftest frees neither its device list nor its parameters
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "pta$$" "ptb$$" 10.236.8.1/24 10.236.8.2/24 || { echo "FAIL: veth setup"; exit 1; }
RR_TIMEOUT=90

# run SIZE ITERS PROGRAM ARGS...: the server in NA, the client in NB
run() {
	local size=$1 iters=$2 name ok=1 f crc src sp
	shift 2
	name="$* -s $size -n $iters"
	rr "$NA" "pta$$" "$@" -x 1 -F -s "$size" -n "$iters" >"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	for _ in $(seq 100); do
		ip netns exec "$NA" ss -ltn 2>/dev/null | grep -q ':18515 ' && break
		sleep 0.1
	done
	rr "$NB" "ptb$$" "$@" -x 1 -F -s "$size" -n "$iters" 10.236.8.1 >"$TMP/cli" 2>&1
	crc=$?
	wait "$sp"
	src=$?
	[ $crc = 0 ] && [ $src = 0 ] || ok=0
	grep -qE "^ +$size +$iters +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+" "$TMP/cli" || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		# both GIDs, ours and the peer's, as perftest prints them
		[ "$(grep -cE "^ GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:236:08:0[12]\$" "$f")" = 2 ] || ok=0
		grep -q "not supported by this device" "$f" && ok=0
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
	fi
}

run 65536 500 ib_write_bw
run 65536 500 ib_read_bw
run 65536 500 ib_send_bw
run 8 500 ib_atomic_bw -A FETCH_AND_ADD
run 8 500 ib_atomic_bw -A CMP_AND_SWAP
run 64 500 ib_write_lat
run 64 500 ib_read_lat
run 64 500 ib_send_lat
run 65536 500 ib_write_bw -c UC
run 512 500 ib_send_bw -c UD

echo "verbs_perftest: $pass passed, $fails failed"
[ $fails = 0 ]
