#!/usr/bin/env bash
# Debian's ibverbs-utils examples, unmodified, between two roce-run
# instances over a veth pair in two namespaces made here: ibv_rc_pingpong
# -c (each side checks every received buffer), with -e (sleeping on the
# completion channel's fd) and at MTU 4096; ibv_uc_pingpong -c,
# ibv_ud_pingpong -c (an AH from the exchanged GID, the GRH area),
# ibv_srq_pingpong -c (QPs sharing an SRQ). Exit status 0 on both sides,
# the originals' address and result lines, no "invalid data" from -c
# (which reports a bad buffer without failing), and no verb refused.
# Usage: verbs_pingpong.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=vpp-a-$$ NB=vpp-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_pingpong: SKIP (needs root and network namespaces)"; exit 0
fi
if ! rr_have ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; then
	echo "verbs_pingpong: SKIP (ibverbs-utils not installed)"; exit 0
fi
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "ppa$$" "ppb$$" 10.235.8.1/24 10.235.8.2/24 || { echo "FAIL: veth setup"; exit 1; }
RR_TIMEOUT=60

# run PROGRAM ARGS...: the server in NA, the client in NB
run() {
	local name="$*" ok=1 f crc src sp
	rr "$NA" "ppa$$" "$@" >"$TMP/srv" 2>&1 &
	sp=$!
	pids+=("$sp")
	# the client connects once the server listens (it retries nothing)
	for _ in $(seq 100); do
		ip netns exec "$NA" ss -ltn 2>/dev/null | grep -q ':18515 ' && break
		sleep 0.1
	done
	rr "$NB" "ppb$$" "$@" 10.235.8.1 >"$TMP/cli" 2>&1
	crc=$?
	wait "$sp"
	src=$?
	[ $crc = 0 ] && [ $src = 0 ] || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		grep -qE "local address: +LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}.* GID ::ffff:10\.235\.8\.[12]" "$f" || ok=0
		grep -qE "remote address: +LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}.* GID ::ffff:10\.235\.8\.[12]" "$f" || ok=0
		grep -qE '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$' "$f" || ok=0
		grep -qE '^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' "$f" || ok=0
		grep -q "not supported by this device" "$f" && ok=0
		# -c: the client checks its buffer and says so, exit 0 or not
		grep -q "invalid data" "$f" && ok=0
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli"; sed 's/^/  server| /' "$TMP/srv"
	fi
}

run ibv_rc_pingpong -g 1 -c -s 4096 -n 200
run ibv_rc_pingpong -g 1 -c -s 65536 -n 50
run ibv_rc_pingpong -g 1 -c -e -s 4096 -n 200
run ibv_uc_pingpong -g 1 -c -s 4096 -n 200
run ibv_ud_pingpong -g 1 -c -s 512 -n 200
run ibv_srq_pingpong -g 1 -c -q 4 -s 4096 -n 100
# path MTU 4096 on a jumbo link
ip -n "$NA" link set "ppa$$" mtu 9000
ip -n "$NB" link set "ppb$$" mtu 9000
run ibv_rc_pingpong -g 1 -c -m 4096 -s 65536 -n 50
run ibv_ud_pingpong -g 1 -c -s 4096 -n 100

echo "verbs_pingpong: $pass passed, $fails failed"
[ $fails = 0 ]
