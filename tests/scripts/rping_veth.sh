#!/usr/bin/env bash
# roce-rping server against roce-rping client over a veth pair between two
# network namespaces made here: the connection through the RDMA CM (REQ,
# REP, RTU and DREQ/DREP on QP1), rping's exchange per ping with -v (each
# side's ping data lines, in order) and -V (validated), over IPv4 and the
# link-local IPv6 addresses; a client to a port nobody listens on (the
# REQ answered with REJ 8: REJECTED, exit 255); `rocectl cm` showing a
# client whose REQs nobody answers (req_sent, its resends, the counters;
# text and JSON) and saying when no CM runs; bad input (usage, exit 2).
# Usage: rping_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
RP=$B/tools/roce-rping
NA=rrp-a-$$ NB=rrp-b-$$
fails=0 pass=0
netns_script_init "$NA" "$NB"

expect "--help" 0 "persistent server mode" "$RP" --help
expect "no role" 2 "-s \[-vVd\]" "$RP" --netdev lo
expect "client without -a" 2 "needs the server's address" "$RP" --netdev lo -c
expect "size too small" 2 "Invalid size 5" "$RP" --netdev lo -s -S 5
expect "bad count" 2 "Invalid count -1" "$RP" --netdev lo -s -C -1
expect "bad address" 2 "invalid address 'nowhere'" "$RP" --netdev lo -c -a nowhere
expect "no --netdev" 2 "give the interface with --netdev" "$RP" -s
expect "bad port" 2 "invalid port '70000'" "$RP" --netdev lo -s -p 70000

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "rping_veth: SKIP the veth runs (needs root and network namespaces)"
	echo "$pass passed, $fails failed"
	[ $fails -eq 0 ]; exit
fi
netns_pair "$NA" "$NB" "ra$$" "rb$$" 10.231.9.1/24 10.231.9.2/24 || { echo "FAIL: veth setup"; exit 1; }

# run NAME SERVER_ADDR COUNT CLIENT_ARGS...: server -s -v (and $SARGS), client -c -v
# -C COUNT; both exit 0, each prints COUNT ping lines in rping's order
run() {
	local name=$1 addr=$2 count=$3; shift 3
	ip netns exec "$NA" timeout -k 5 60 "$RP" --netdev "ra$$" -s -v -a "$addr" -C "$count" \
		${SARGS:-} >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	sleep 0.5
	ip netns exec "$NB" timeout -k 5 60 "$RP" --netdev "rb$$" -c -v -a "$addr" -C "$count" "$@" \
		>"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$? ok=1
	local why=
	[ $crc -eq 0 ] && [ $src -eq 0 ] || why+=" exit"
	[ "$(grep -c '^ping data: rdma-ping-' "$TMP/cli")" = "$count" ] || why+=" client-lines"
	[ "$(grep -c '^server ping data: rdma-ping-' "$TMP/srv")" = "$count" ] || why+=" server-lines"
	# rping's text: ping 0 starts at 'A', ping 1 at 'B'
	grep -q '^ping data: rdma-ping-0: ABCDEF' "$TMP/cli" || why+=" ping0"
	[ "$count" -lt 2 ] || grep -q '^ping data: rdma-ping-1: BCDEFG' "$TMP/cli" || why+=" ping1"
	grep -q "^ping data: rdma-ping-$((count - 1)): " "$TMP/cli" || why+=" last"
	# the server sees the client's DREQ; the client's own DISCONNECTED
	# may come after it exits, as with rping (its CM thread prints it)
	grep -q 'server DISCONNECT EVENT' "$TMP/srv" || why+=" server-disconnect"
	# -q -d: the client's QP is its own: CONNECT_RESPONSE, not ESTABLISHED
	case " $* " in *" -q -d "*)
		grep -q '^CONNECT_RESPONSE' "$TMP/cli" || why+=" connect-response"
		! grep -q '^ESTABLISHED' "$TMP/cli" || why+=" established" ;;
	esac
	[ -z "$why" ] || ok=0
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src:$why)"
		cut -c1-100 "$TMP/cli" | sed 's/^/  client| /'
		cut -c1-100 "$TMP/srv" | sed 's/^/  server| /'
	fi
}

run "ipv4 -v -V -C 10 -S 4096" 10.231.9.1 10 -V -S 4096
run "ipv4 -v -C 5 (64 bytes)" 10.231.9.1 5
run "ipv4 -V -C 3 -S 65535" 10.231.9.1 3 -V -S 65535
# -q on both sides: QPs the tools make and move with the CM's attributes
SARGS=-q run "ipv4 -q -V -C 5 (self-created QPs)" 10.231.9.1 5 -V -q -d

# RoCE v2 over the link-local IPv6 addresses
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
for i in $(seq 50); do
	if ip -n "$NA" -6 addr show dev "ra$$" scope link | grep -q inet6 &&
	   ! ip -n "$NA" -6 addr show dev "ra$$" | grep -q tentative &&
	   ! ip -n "$NB" -6 addr show dev "rb$$" | grep -q tentative; then
		break
	fi
	sleep 0.1
done
LL=$(ip -n "$NA" -6 addr show dev "ra$$" scope link | sed -n 's/.*inet6 \([^/]*\)\/.*/\1/p' | head -1)
run "ipv6 link-local -V -C 5" "$LL" 5 -V

# a CM that nobody listens to on the port: REJ 8 (invalid service ID),
# REJECTED, exit 255
ip netns exec "$NA" timeout -k 5 60 "$RP" --netdev "ra$$" -s -a 10.231.9.1 -p 7174 \
	>"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
sleep 0.5
expect "wrong port: REJECTED 8" 255 "cma event RDMA_CM_EVENT_REJECTED, error 8" \
	ip netns exec "$NB" timeout -k 5 60 "$RP" --netdev "rb$$" -c -a 10.231.9.1 -p 7175 -C 1
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null

# rocectl cm: nothing to show yet in NB; then a client whose REQs go to an
# address with no CM behind it (NA runs none now): it sits in req_sent
RC=$B/tools/rocectl
expect "rocectl cm: no CM" 1 "no RDMA CM in this network namespace" \
	ip netns exec "$NB" "$RC" cm
expect "rocectl cm: bad PID" 2 "bad PID 'x'" "$RC" cm x
ip netns exec "$NB" timeout -k 5 60 "$RP" --netdev "rb$$" -c -a 10.231.9.1 -C 1 \
	>"$TMP/cli" 2>&1 &
cp_=$!
pids+=("$cp_")
for i in $(seq 50); do
	ip netns exec "$NB" "$RC" cm >"$TMP/cm" 2>&1 && grep -q req_sent "$TMP/cm" && break
	sleep 0.1
done
expect "rocectl cm: req_sent" 0 " active   req_sent .* 0/15 .*10.231.9.1:7174" \
	ip netns exec "$NB" "$RC" cm
expect "rocectl cm: counters" 0 "mads_tx [1-9]" ip netns exec "$NB" "$RC" cm
ip netns exec "$NB" "$RC" cm --json >"$TMP/cm.json" 2>&1
if python3 -c '
import json, sys
cms = json.load(open(sys.argv[1]))
assert len(cms) == 1, cms
ids = cms[0]["ids"]
assert ids[0]["state"] == "req_sent" and ids[0]["role"] == "active", ids
assert ids[0]["max_resends"] == 15 and ids[0]["remote"] == "10.231.9.1:7174", ids
assert cms[0]["counters"]["req_tx"] >= 1 and cms[0]["counters"]["rep_rx"] == 0
' "$TMP/cm.json"; then
	pass=$((pass + 1)); echo "ok   rocectl cm --json"
else
	fails=$((fails + 1)); echo "FAIL rocectl cm --json"; head -c 600 "$TMP/cm.json"
fi
cpid=$(cat /proc/"$cp_"/task/*/children 2>/dev/null | awk '{print $1}')
expect "rocectl cm PID" 0 "req_sent" ip netns exec "$NB" "$RC" cm "${cpid:-0}"
expect "rocectl cm other PID" 1 "no RDMA CM of that PID" ip netns exec "$NB" "$RC" cm 1
# the status is its user's (or root's) only
if command -v setpriv >/dev/null; then
	expect "rocectl cm: another user gets nothing" 1 "no answer" \
		ip netns exec "$NB" setpriv --reuid=65534 --regid=65534 --clear-groups "$RC" cm
fi
kill "$cp_" 2>/dev/null
wait "$cp_" 2>/dev/null

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
