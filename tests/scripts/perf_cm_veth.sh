#!/usr/bin/env bash
# roce-perf -R (perftest's rdma_cm mode) client against roce-perf -R
# server over a veth pair between two network namespaces made here:
# write_bw, read_bw, send_bw (also -q 3) and write_lat, the exchange over a
# QP the RDMA CM connected and the test's QPs through the CM. Each run:
# both exit 0, both print "rdma_cm QPs : ON" and perftest's result table,
# the content check passes where there is one, the client has the
# peer's keys of every QP, the CMs' counters (--counters) show the RTUs
# and the disconnection. Then the errors: a client to a port nobody
# listens on (REJ 8, a message, exit 1), a client to an address nobody
# answers ARP for (a message, exit 1).
# Usage: perf_cm_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
PERF=$B/tools/roce-perf
NA=rpcm-a-$$ NB=rpcm-b-$$
fails=0 pass=0
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "perf_cm_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
netns_pair "$NA" "$NB" "ca$$" "cb$$" 10.231.11.1/24 10.231.11.2/24 ||
	{ echo "FAIL: veth setup"; exit 1; }

# run TEST ARGS...: server in NA, client in NB, both with -R
run() {
	local t=$1; shift
	local name="$t -R $*" why=
	ip netns exec "$NA" timeout -k 5 120 "$PERF" "$t" -R --netdev "ca$$" --timeout 20 \
		--counters "$@" >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 120 "$PERF" "$t" -R --netdev "cb$$" --timeout 20 \
		--counters "$@" 10.231.11.1 >"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$?
	[ $crc -eq 0 ] && [ $src -eq 0 ] || why+=" exit"
	for f in cli srv; do
		grep -qP '^ rdma_cm QPs\t : ON$' "$TMP/$f" || why+=" $f:rdma_cm-line"
		grep -q '^ Data ex. method : rdma_cm' "$TMP/$f" || why+=" $f:method"
	done
	grep -q 'Waiting for client rdma_cm QP to connect' "$TMP/srv" || why+=" srv:banner"
	grep -qE '^ [0-9]+ +[0-9]+ ' "$TMP/cli" || why+=" cli:table"
	case " $* " in *" --check "*)
		cat "$TMP/cli" "$TMP/srv" | grep -q 'content check: passed' || why+=" check" ;;
	esac
	# --counters: the CMs' own, the client's REQs answered, the server's
	# REPs answered, each connection of both taken down; UD: the test
	# QPs' SIDR_REQs answered (the exchange's connection is RC)
	grep -q '^cm_rtu_tx [1-9]' "$TMP/cli" || why+=" cli:cm_rtu_tx"
	grep -q '^cm_rtu_rx [1-9]' "$TMP/srv" || why+=" srv:cm_rtu_rx"
	grep -q '^cm_drep_rx [1-9]\|^cm_drep_tx [1-9]' "$TMP/cli" || why+=" cli:cm_drep"
	case " $* " in *" -c UD "*)
		grep -q "^cm_sidr_req_tx ${QPS:-1}\$" "$TMP/cli" || why+=" cli:cm_sidr_req_tx"
		grep -q "^cm_sidr_rep_rx ${QPS:-1}\$" "$TMP/cli" || why+=" cli:cm_sidr_rep_rx"
		grep -q "^cm_sidr_rep_tx ${QPS:-1}\$" "$TMP/srv" || why+=" srv:cm_sidr_rep_tx" ;;
	esac
	# the client printed the keys of each of its QPs' peers
	local n
	n=$(grep -c ' remote address: ' "$TMP/cli")
	[ "$n" = "${QPS:-1}" ] || why+=" cli:remote-keys($n)"
	if [ -n "$why" ]; then
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src:$why)"
		sed 's/^/  client| /' "$TMP/cli" | tail -25; sed 's/^/  server| /' "$TMP/srv" | tail -25
	else
		pass=$((pass + 1)); echo "ok   $name"
	fi
}

run write_bw -n 500 --check
run read_bw -n 500 --check
run send_bw -n 500 --check
QPS=3 run send_bw -n 200 -q 3 --check
run write_lat -n 500
# UD through SIDR: the server's QPN and Q_Key from the SIDR_REP; on the
# latency test the server learns the client's from its first datagram
run send_bw -c UD -n 500 -s 1024 --check
QPS=2 run send_bw -c UD -n 200 -s 512 -q 2
run send_lat -c UD -n 500 -s 256

# nobody listens on the port: REJ 8, said as such, exit 1
ip netns exec "$NA" timeout -k 5 60 "$PERF" write_bw -R --netdev "ca$$" -p 18600 --timeout 20 \
	>"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
sleep 0.5
expect "no listener on the port: REJ 8" 1 "REJ reason 8.*nobody listens on port 18601" \
	ip netns exec "$NB" timeout -k 5 60 "$PERF" write_bw -R --netdev "cb$$" -p 18601 --timeout 2 \
	10.231.11.1
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
# nobody at the address
expect "no such host: no ARP answer" 1 "does not resolve" \
	ip netns exec "$NB" timeout -k 5 60 "$PERF" write_bw -R --netdev "cb$$" --timeout 2 10.231.11.9

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
