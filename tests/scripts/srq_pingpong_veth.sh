#!/usr/bin/env bash
# roce-srq-pingpong client against roce-srq-pingpong server over a veth
# pair between two network namespaces made here: exit codes and
# ibv_srq_pingpong's output (a local and a remote address line per QP,
# the two result lines) with -c on 1, 4 and 16 QPs, small and multi-packet
# messages, a receive depth that makes the SRQ refill often, -e on both
# sides and on one; RoCE v2 over IPv6: -g 0 (the link-local GIDs, which the
# kernels carry and answer neighbour discovery for) and -g 2 with --ip6
# addresses the kernels do not carry (our ports answer), every QP printing
# that GID on both sides, and the frames on the veth IPv6 between the two
# GIDs; -g 1 (the IPv4 GID with a GRH); the refusals of roce-pingpong (an
# IPv6 peer without -g, -g beyond the GID table, a multicast --ip6); then
# the command-line errors (the original's checks: too many QPs for the
# receive depth, 255 QPs or more; bad values) and --help.
# Usage: srq_pingpong_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
SP=$B/tools/roce-srq-pingpong
NA=rsp-a-$$ NB=rsp-b-$$
fails=0 pass=0
SRV=() CLI=()           # extra arguments of the server's, the client's side
GIDRE='::ffff:10\.231\.9\.[12]'   # the GIDs both sides print
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
	ip netns exec "$NA" timeout -k 5 60 "$SP" --netdev "sa$$" --timeout 20 -q "$q" "$@" \
		${SRV[@]+"${SRV[@]}"} >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 60 "$SP" --netdev "sb$$" --timeout 20 -q "$q" "$@" \
		${CLI[@]+"${CLI[@]}"} 10.231.9.1 >"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$? ok=1
	[ $crc -eq 0 ] && [ $src -eq 0 ] || ok=0
	for f in "$TMP/cli" "$TMP/srv"; do
		[ "$(grep -cE "^  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID $GIDRE\$" "$f")" = "$q" ] || ok=0
		[ "$(grep -cE "^  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID $GIDRE\$" "$f")" = "$q" ] || ok=0
		grep -qE '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$' "$f" || ok=0
		grep -qE '^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' "$f" || ok=0
	done
	# the remote QPNs and GIDs one side prints are the local ones the
	# other printed
	diff <(sed -n 's/^  local address:  .*QPN \(0x[0-9a-f]*\),.*GID \(.*\)/\1 \2/p' "$TMP/srv") \
	     <(sed -n 's/^  remote address: .*QPN \(0x[0-9a-f]*\),.*GID \(.*\)/\1 \2/p' "$TMP/cli") >/dev/null || ok=0
	diff <(sed -n 's/^  local address:  .*QPN \(0x[0-9a-f]*\),.*GID \(.*\)/\1 \2/p' "$TMP/cli") \
	     <(sed -n 's/^  remote address: .*QPN \(0x[0-9a-f]*\),.*GID \(.*\)/\1 \2/p' "$TMP/srv") >/dev/null || ok=0
	# one GID per side for all its QPs
	for f in "$TMP/cli" "$TMP/srv"; do
		[ "$(sed -n 's/^  local address: .*GID //p' "$f" | sort -u | wc -l)" = 1 ] || ok=0
	done
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
run 4 -g 1 -c -s 4096 -n 200

# RoCE v2 over IPv6: the link-local GIDs (the kernels carry them) ...
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
for i in $(seq 50); do
	if ip -n "$NA" -6 addr show dev "sa$$" scope link | grep -q inet6 &&
	   ip -n "$NB" -6 addr show dev "sb$$" scope link | grep -q inet6 &&
	   ! ip -n "$NA" -6 addr show dev "sa$$" | grep -q tentative &&
	   ! ip -n "$NB" -6 addr show dev "sb$$" | grep -q tentative; then
		break
	fi
	sleep 0.1
done
LLA=$(ip -n "$NA" -6 addr show dev "sa$$" scope link | sed -n 's|.*inet6 \([^/]*\)/.*|\1|p')
LLB=$(ip -n "$NB" -6 addr show dev "sb$$" scope link | sed -n 's|.*inet6 \([^/]*\)/.*|\1|p')
GIDRE="($LLA|$LLB)"
# the RoCE frames on the veth while a run goes: all IPv6, between GIDS
# (none over IPv4); needs tcpdump (a note without it)
cap_start() {
	CAP=
	command -v tcpdump >/dev/null || { echo "note: no tcpdump, frames not checked"; return; }
	CAP=$TMP/v6.pcap
	ip netns exec "$NA" tcpdump -i "sa$$" -U -n -w "$CAP" 'udp dst port 4791' 2>/dev/null &
	CAPPID=$!
	pids+=("$CAPPID")
	for i in $(seq 50); do [ -s "$CAP" ] && break; sleep 0.1; done
}
cap_check() {           # NAME GID_A GID_B
	[ -n "$CAP" ] || return 0
	sleep 0.3
	kill "$CAPPID" 2>/dev/null; wait "$CAPPID" 2>/dev/null
	local v4 v6 bad
	v4=$(tcpdump -r "$CAP" -n 'ip and udp dst port 4791' 2>/dev/null | wc -l)
	v6=$(tcpdump -r "$CAP" -n 'ip6 and udp dst port 4791' 2>/dev/null | wc -l)
	bad=$(tcpdump -r "$CAP" -n "ip6 and udp dst port 4791 and not ((src $2 and dst $3) or (src $3 and dst $2))" 2>/dev/null | wc -l)
	if [ "$v4" = 0 ] && [ "$v6" -gt 0 ] && [ "$bad" = 0 ]; then
		pass=$((pass + 1)); echo "ok   $1: $v6 RoCE frames, all IPv6 between $2 and $3"
	else
		fails=$((fails + 1)); echo "FAIL $1: RoCE frames: $v4 over IPv4, $v6 over IPv6 ($bad not between $2 and $3)"
	fi
}
cap_start
run 4 -g 0 -c -s 4096 -n 400
cap_check "-g 0 frames" "$LLA" "$LLB"
run 16 -g 0 -c -s 10000 -n 400 -e
# ... and addresses only our ports have (they answer neighbour discovery)
GIDRE='fd94::[12]'
SRV=(--ip6 fd94::1) CLI=(--ip6 fd94::2)
cap_start
run 4 -g 2 -c -s 4096 -n 400 -m 1024
cap_check "-g 2 --ip6 frames" fd94::1 fd94::2
SRV=() CLI=()
GIDRE='::ffff:10\.231\.9\.[12]'
# the refusals: a peer whose GID is IPv6 needs -g on our side too (the
# server says so as it connects), as does an IPv6 GID toward an IPv4 one;
# -g beyond the GID table; --ip6 multicast or IPv4-mapped
ip netns exec "$NB" timeout -k 5 30 "$SP" --netdev "sb$$" --timeout 5 -q 2 -g 0 10.231.9.1 \
	>"$TMP/cli" 2>&1 &
pids+=($!)
expect "IPv6 peer, no -g" nz "the peer's GID is IPv6: give -g" \
	ip netns exec "$NA" timeout -k 5 30 "$SP" --netdev "sa$$" --timeout 5 -q 2
wait "${pids[-1]}" 2>/dev/null
# and the other way round: a server with -g 0 meets the client's IPv4 GID
ip netns exec "$NB" timeout -k 5 30 "$SP" --netdev "sb$$" --timeout 5 -q 2 10.231.9.1 \
	>"$TMP/cli" 2>&1 &
pids+=($!)
expect "IPv6 GID, IPv4 peer" nz "our GID fe80::.* and the peer's ::ffff:10\.231\.9\.2 are not both IPv4 or both IPv6" \
	ip netns exec "$NA" timeout -k 5 30 "$SP" --netdev "sa$$" --timeout 5 -q 2 -g 0
wait "${pids[-1]}" 2>/dev/null
expect "-g beyond the GID table" nz "can't read sgid of index 7" \
	ip netns exec "$NA" timeout -k 5 30 "$SP" --netdev "sa$$" --timeout 2 -g 7
expect "-g 16" 2 "bad GID index '16'" "$SP" --netdev "sa$$" -g 16
expect "--ip6 multicast" 2 "bad --ip6" "$SP" --netdev "sa$$" --ip6 ff02::1
expect "--ip6 IPv4-mapped" 2 "bad --ip6" "$SP" --netdev "sa$$" --ip6 ::ffff:10.0.0.1

# the original's checks and bad values: exit 2, a message
expect "too many QPs for the receive depth" 2 "rx_depth 4 is too small for 8 QPs" \
	"$SP" --netdev "sa$$" -q 8 -r 4
expect "256 QPs" 2 "num_qp 256 must be less than 255" "$SP" --netdev "sa$$" -q 256 -r 500
expect "-q 0" 2 "bad number of QPs '0'" "$SP" --netdev "sa$$" -q 0
expect "bad MTU" 2 "bad MTU" "$SP" --netdev "sa$$" -m 1000
expect "no --netdev" 2 "give the interface with --netdev" "$SP"
expect "unknown option" 2 "unknown option" "$SP" --netdev "sa$$" -Z
expect "--help" 0 "-q, --num-qp=<num>" "$SP" --help
expect "--help says -g" 0 "an IPv6 GID makes it RoCE v2 over IPv6" "$SP" --help

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
