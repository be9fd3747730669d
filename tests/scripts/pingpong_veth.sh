#!/usr/bin/env bash
# roce-pingpong client against roce-pingpong server over a veth pair
# between two network namespaces made here, with -c: exit codes and
# ibv_rc_pingpong's output lines on both sides.
# Usage: pingpong_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir}
PP=$B/tools/roce-pingpong
NA=rpp-a-$$ NB=rpp-b-$$
fails=0 pass=0
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	netns_del "$NA" "$NB"
	rm -rf "$TMP"
}
TMP=$(mktemp -d)
trap cleanup EXIT

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "pingpong_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
netns_pair "$NA" "$NB" "pa$$" "pb$$" 10.231.8.1/24 10.231.8.2/24 || { echo "FAIL: veth setup"; exit 1; }

run() {
	local name="$*"
	ip netns exec "$NA" timeout 60 "$PP" --netdev "pa$$" --timeout 20 "$@" >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout 60 "$PP" --netdev "pb$$" --timeout 20 "$@" 10.231.8.1 \
		>"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$? ok=1
	[ $crc -eq 0 ] && [ $src -eq 0 ] || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		grep -qE '^  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:10\.231\.8\.[12]$' "$f" || ok=0
		grep -qE '^  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:10\.231\.8\.[12]$' "$f" || ok=0
		grep -qE '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$' "$f" || ok=0
		grep -qE '^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' "$f" || ok=0
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
	fi
}

run -g 1 -c -s 64 -n 100
run -g 1 -c -s 4096 -n 200
run -g 1 -c -s 65536 -n 50 -m 1024
run -g 1 -s 4096 -n 100 -r 10 -t

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
