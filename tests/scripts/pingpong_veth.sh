#!/usr/bin/env bash
# roce-pingpong client against roce-pingpong server over a veth pair
# between two network namespaces made here, with -c: exit codes and
# ibv_rc_pingpong's output lines on both sides; the same for
# roce-uc-pingpong (UC QPs, no ACK from either side) and roce-ud-pingpong
# (UD QPs, over IPv4 and IPv6 GIDs, -s up to the veth's MTU; no ACK). The same with the AF_XDP
# port (--link xdp) on one side and on both (skipped, saying why, where
# AF_XDP is unavailable), and the --link errors (an MTU too big for AF_XDP,
# no rights, a bad value). RoCE v2 over IPv6: -g 0 (the link-local GIDs,
# which the kernels carry and answer neighbour discovery for) and -g 2
# with --ip6 addresses the kernels do not carry (our ports answer), on
# AF_PACKET and AF_XDP.
# Usage: pingpong_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
PP=$B/tools/roce-pingpong
NA=rpp-a-$$ NB=rpp-b-$$
fails=0 pass=0
SRV=() CLI=()           # extra arguments of the server's, the client's side
GIDRE='::ffff:10\.231\.8\.[12]'   # the GIDs both sides print
SEP=,                   # before " GID" on the local line (ud_pingpong: ":")
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "pingpong_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
netns_pair "$NA" "$NB" "pa$$" "pb$$" 10.231.8.1/24 10.231.8.2/24 || { echo "FAIL: veth setup"; exit 1; }

run() {
	local name="$*${SRV[*]:+ [server ${SRV[*]}]}${CLI[*]:+ [client ${CLI[*]}]}"
	ip netns exec "$NA" timeout -k 5 60 "$PP" --netdev "pa$$" --timeout 20 "$@" \
		${SRV[@]+"${SRV[@]}"} >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 60 "$PP" --netdev "pb$$" --timeout 20 "$@" \
		${CLI[@]+"${CLI[@]}"} 10.231.8.1 >"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$? ok=1
	[ $crc -eq 0 ] && [ $src -eq 0 ] || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		grep -qE "^  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}$SEP GID $GIDRE\$" "$f" || ok=0
		grep -qE "^  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID $GIDRE\$" "$f" || ok=0
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
# -e: sleeping on the completion channel, on both sides and on one
run -g 1 -c -e -s 4096 -n 200
SRV=(-e) CLI=()
run -g 1 -c -s 65536 -n 50 -m 1024
SRV=() CLI=(-e)
run -g 1 -c -s 64 -n 100
SRV=() CLI=()

# RoCE v2 over IPv6: the link-local GIDs (the kernels carry them) ...
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
for i in $(seq 50); do
	if ip -n "$NA" -6 addr show dev "pa$$" scope link | grep -q inet6 &&
	   ! ip -n "$NA" -6 addr show dev "pa$$" | grep -q tentative &&
	   ! ip -n "$NB" -6 addr show dev "pb$$" | grep -q tentative; then
		break
	fi
	sleep 0.1
done
GIDRE='fe80::[0-9a-f:]+'
run -g 0 -c -s 4096 -n 200
run -g 0 -c -s 65536 -n 50 -m 1024
# ... and addresses only our ports have (they answer neighbour discovery)
GIDRE='fd93::[12]'
SRV=(--ip6 fd93::1) CLI=(--ip6 fd93::2)
run -g 2 -c -s 4096 -n 200
SRV=() CLI=()
# a peer whose GID is IPv6 needs -g on our side too (the server says so
# as it connects)
ip netns exec "$NB" timeout -k 5 30 "$PP" --netdev "pb$$" --timeout 5 -g 0 10.231.8.1 \
	>"$TMP/cli" 2>&1 &
pids+=($!)
expect "IPv6 peer, no -g" nz "the peer's GID is IPv6: give -g" \
	ip netns exec "$NA" timeout -k 5 30 "$PP" --netdev "pa$$" --timeout 5
wait "${pids[-1]}" 2>/dev/null
# an IPv6 GID of ours toward the peer's IPv4 one: refused, saying why
ip netns exec "$NB" timeout -k 5 30 "$PP" --netdev "pb$$" --timeout 5 10.231.8.1 \
	>"$TMP/cli" 2>&1 &
pids+=($!)
expect "IPv6 GID, IPv4 peer" nz "our GID fe80::.* and the peer's ::ffff:10\.231\.8\.2 are not both IPv4 or both IPv6" \
	ip netns exec "$NA" timeout -k 5 30 "$PP" --netdev "pa$$" --timeout 5 -g 0
wait "${pids[-1]}" 2>/dev/null
GIDRE='::ffff:10\.231\.8\.[12]'
expect "-g beyond the GID table" nz "can't read sgid of index 7" \
	ip netns exec "$NA" timeout -k 5 30 "$PP" --netdev "pa$$" --timeout 2 -g 7
expect "--ip6 multicast" 2 "bad --ip6" "$PP" --netdev "pa$$" --ip6 ff02::1

# The AF_XDP port (--link xdp), where this machine has AF_XDP.
if xdp_probe "$B/tests/helpers/afx_engines" "$NA" "pa$$"; then
	SRV=(--link xdp) CLI=()
	run -g 1 -c -s 4096 -n 200
	SRV=() CLI=(--link xdp)
	run -g 1 -c -s 65536 -n 50 -m 1024
	SRV=(--link xdp --xdp-mode generic) CLI=(--link xdp)
	run -g 1 -c -s 64 -n 100
	run -g 1 -c -s 4096 -n 200
	run -g 1 -c -s 65536 -n 50 -m 1024
	run -g 1 -s 4096 -n 100 -r 10 -t
	# IPv6 through the kernel's neighbour discovery (AF_XDP shares it)
	GIDRE='fe80::[0-9a-f:]+'
	SRV=(--link xdp) CLI=()
	run -g 0 -c -s 4096 -n 200
	GIDRE='::ffff:10\.231\.8\.[12]'
	SRV=() CLI=()
	# an IPv6 GID the interface does not carry: the kernel would not
	# answer neighbour discovery for it (the server refuses at once)
	ip netns exec "$NB" timeout -k 5 30 "$PP" --netdev "pb$$" --timeout 5 -g 2 --ip6 fd93::2 \
		10.231.8.1 >"$TMP/cli" 2>&1 &
	pids+=($!)
	expect "--link xdp with a GID the interface lacks" nz "must carry our GID fd93::1" \
		ip netns exec "$NA" timeout -k 5 30 "$PP" --netdev "pa$$" --timeout 5 --link xdp \
		-g 2 --ip6 fd93::1
	wait "${pids[-1]}" 2>/dev/null
	# an interface MTU AF_XDP cannot carry: refused, saying what to do
	ip -n "$NA" link set "pa$$" mtu 9000
	expect "--link xdp at MTU 9000" nz "use --link packet or an MTU <= 3822" \
		ip netns exec "$NA" timeout -k 5 30 "$PP" --netdev "pa$$" --link xdp --timeout 2
	ip -n "$NA" link set "pa$$" mtu 1500
	# without the rights: refused, saying which are needed
	if command -v setpriv >/dev/null; then
		expect "--link xdp without rights" nz "perm: --link xdp: .*needs root" \
			ip netns exec "$NA" timeout -k 5 30 setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$PP" --netdev "pa$$" --link xdp --timeout 2
	fi
fi

# roce-uc-pingpong (ibv_uc_pingpong): the same exchange and output over UC
# QPs; neither side acknowledges anything (no acks_tx among the non-zero
# counters) and both sent their messages; over IPv6 and with -e too
PP=$B/tools/roce-uc-pingpong
run -g 1 -c -s 64 -n 100
run -c -s 65536 -n 50 -m 1024
run -c -s 4096 -n 200 --counters
for f in "$TMP/cli" "$TMP/srv"; do
	if grep -q '^acks_tx ' "$f" || ! grep -qE '^tx_pkts [1-9]' "$f"; then
		fails=$((fails + 1)); echo "FAIL uc counters ($(basename "$f"))"; sed 's/^/  | /' "$f"
	else
		pass=$((pass + 1)); echo "ok   uc: no ACK sent ($(basename "$f"))"
	fi
done
# UC over the link-local IPv6 GIDs, each side sleeping on its channel
GIDRE='fe80::[0-9a-f:]+'
run -g 0 -c -e -s 4096 -n 200
GIDRE='::ffff:10\.231\.8\.[12]'
expect "uc -t refused" 2 "unknown option '-t'" "$PP" --netdev "pa$$" -t
expect "uc --help" 0 "ibv_uc_pingpong's" "$PP" --help

# roce-ud-pingpong (ibv_ud_pingpong): datagrams over IPv4 (-g 1) and the
# link-local IPv6 GIDs (-g 0), up to the port's MTU (the veth's 1500:
# 1024); nothing acknowledged, nothing dropped
PP=$B/tools/roce-ud-pingpong SEP=:
run -g 1 -c -s 1024 -n 200 --counters
for f in "$TMP/cli" "$TMP/srv"; do
	if grep -qE '^(acks_tx|drop_[a-z0-9_]+) ' "$f" || ! grep -qE '^tx_pkts 20[01]$' "$f"; then
		fails=$((fails + 1)); echo "FAIL ud counters ($(basename "$f"))"; sed 's/^/  | /' "$f"
	else
		pass=$((pass + 1)); echo "ok   ud: one frame a message, no ACK, no drop ($(basename "$f"))"
	fi
done
run -g 1 -c -s 1 -n 100
GIDRE='fe80::[0-9a-f:]+'
run -g 0 -c -s 1024 -n 200
GIDRE='::ffff:10\.231\.8\.[12]'
expect "ud -s over the port MTU" 1 "Requested size larger than port MTU \(1024\)" \
	ip netns exec "$NA" "$PP" --netdev "pa$$" -s 2048 --timeout 2
expect "ud -m refused" 2 "unknown option '-m'" "$PP" --netdev "pa$$" -m 1024
expect "ud --help" 0 "ibv_ud_pingpong's" "$PP" --help
PP=$B/tools/roce-pingpong SEP=,

# --link errors: a bad value
expect "--link bad value" 2 "bad --link" "$PP" --netdev "pa$$" --link udp
expect "--xdp-mode bad value" 2 "bad --xdp-mode" "$PP" --netdev "pa$$" --link xdp --xdp-mode fast
expect "--help documents --link" 0 "--link=packet\|xdp" "$PP" --help

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
