#!/usr/bin/env bash
# roce-pingpong client against roce-pingpong server over a veth pair
# between two network namespaces made here, with -c: exit codes and
# ibv_rc_pingpong's output lines on both sides.
# Usage: pingpong_veth.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir}
PP=$B/tools/roce-pingpong
NA=rpp-a-$$ NB=rpp-b-$$
fails=0 pass=0
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	rm -rf "$TMP"
}
TMP=$(mktemp -d)
trap cleanup EXIT

if [ "$(id -u)" != 0 ] || ! ip netns add "$NA" 2>/dev/null; then
	echo "pingpong_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
ip netns add "$NB" &&
ip link add "pa$$" type veth peer name "pb$$" &&
ip link set "pa$$" netns "$NA" && ip link set "pb$$" netns "$NB" &&
ip -n "$NA" addr add 10.231.8.1/24 dev "pa$$" && ip -n "$NB" addr add 10.231.8.2/24 dev "pb$$" &&
ip -n "$NA" link set "pa$$" up && ip -n "$NB" link set "pb$$" up &&
ip -n "$NA" link set lo up && ip -n "$NB" link set lo up || { echo "FAIL: veth setup"; exit 1; }

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
