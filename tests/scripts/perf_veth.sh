#!/usr/bin/env bash
# roce-perf client against roce-perf server, every test, over a veth pair
# between two network namespaces made here (the AF_PACKET link, ARP, the
# TCP exchange on port 18515), with --check: exit codes, perftest's result
# table and the content check's verdict on both sides. Also -q (up to 256),
# -a, -D, and -b (with --report-both, --report_gbits) on the bandwidth tests,
# -c UC and -c UD on the tests perftest allows them on, and RoCE v2 over
# IPv6 (-x with link-local and --ip6 GIDs, UD too).
# Then the same checks with the AF_XDP port (--link xdp) on one side and
# on both (skipped, saying why, where AF_XDP is unavailable), and the
# --link errors: an MTU too big for AF_XDP, no rights, a bad value.
# Usage: perf_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/tool_checks.sh"
B=${1:?build dir}
PERF=$B/tools/roce-perf
NA=rperf-a-$$ NB=rperf-b-$$
fails=0 pass=0
SRV=() CLI=()           # extra arguments of the server's, the client's side
netns_script_init "$NA" "$NB"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "perf_veth: SKIP (needs root and network namespaces)"
	exit 0
fi
# The summary line of a -b run (before "Local results"), its figures to
# two decimals.
sum_line() {
	sed '/Local results/,$d' "$TMP/$1" | grep -E '^ [0-9]+ +[0-9]+ ' |
		awk '{ printf "%s %s", $1, $2; for (i = 3; i <= NF; i++) printf " %.2f", $i; print "" }'
}

netns_pair "$NA" "$NB" "va$$" "vb$$" 10.231.7.1/24 10.231.7.2/24 || { echo "FAIL: veth setup"; exit 1; }

# run TEST ARGS...: server in NA, client in NB; both must pass
run() {
	local t=$1; shift
	local name="$t $*${SRV[*]:+ [server ${SRV[*]}]}${CLI[*]:+ [client ${CLI[*]}]}"
	ip netns exec "$NA" timeout -k 5 120 "$PERF" "$t" --netdev "va$$" --timeout 20 "$@" \
		${SRV[@]+"${SRV[@]}"} >"$TMP/srv" 2>&1 &
	local sp=$!
	pids+=("$sp")
	ip netns exec "$NB" timeout -k 5 120 "$PERF" "$t" --netdev "vb$$" --timeout 20 "$@" \
		${CLI[@]+"${CLI[@]}"} 10.231.7.1 >"$TMP/cli" 2>&1
	local crc=$?
	wait "$sp"
	local src=$?
	local ok=1
	[ $crc -eq 0 ] && [ $src -eq 0 ] || ok=0
	grep -q '#bytes' "$TMP/cli" || ok=0
	grep -qE '^ [0-9]+ +[0-9]+ ' "$TMP/cli" || ok=0
	case " $* " in *" --check "*)
		cat "$TMP/cli" "$TMP/srv" | grep -q 'content check: passed' || ok=0 ;;
	esac
	# -b: both sides sent (banner, the check on both) and print the same
	# sum of both directions
	case " $* " in *" -b "*)
		for f in cli srv; do
			grep -q 'Bidirectional BW Test$' "$TMP/$f" || ok=0
			case " $* " in *" --check "*) grep -q 'content check: passed' "$TMP/$f" || ok=0 ;; esac
		done
		# the same figures on both sides, as numbers: each side prints
		# the six-decimal form when its own average is low (perftest's
		# print_full_bw_report), so a slow run may differ in form only
		[ "$(sum_line cli)" = "$(sum_line srv)" ] && [ -n "$(sum_line cli)" ] || ok=0 ;;
	esac
	case " $* " in *" --report-both "*)
		for f in cli srv; do grep -q '^ Remote results' "$TMP/$f" || ok=0; done ;;
	esac
	case " $* " in *" --report_gbits "*)
		for f in cli srv; do grep -q 'BW average\[Gb/sec\]' "$TMP/$f" || ok=0; done ;;
	esac
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (client rc=$crc, server rc=$src)"
		sed 's/^/  client| /' "$TMP/cli" | tail -15; sed 's/^/  server| /' "$TMP/srv" | tail -15
	fi
}

for t in write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat; do
	run "$t" -n 200 --check
done
run write_bw -s 65536 -n 100 -q 2 --check
run send_bw -s 4096 -n 100 -q 2 --check
# 256 QPs between two processes: all keys over the TCP exchange, each QP
# its region, checked; the table counts every QP's messages (50 x 256).
# -t 16: 4096 frames in flight, not 256 x 128, which overflow the veth's
# and the socket's queues whenever the receiving engine waits for a core,
# and whose go-back-N resends, all timed out together, overflow them again
for t in write_bw send_bw; do
	run "$t" -s 4096 -n 50 -q 256 -t 16 -u 17 --check
	if grep -qE '^ 4096 +12800 ' "$TMP/cli" && [ "$(grep -c ' remote address: ' "$TMP/srv")" = 256 ]; then
		pass=$((pass + 1)); echo "ok   $t -q 256: 12800 messages, 256 remote keys"
	else
		fails=$((fails + 1)); echo "FAIL $t -q 256: the table or the keys"; tail -5 "$TMP/cli"
	fi
done
run read_bw -a -n 5 --check
run send_lat -a -n 5 --check
run write_bw -D 2 -s 4096 --check
run atomic_bw -A CMP_AND_SWAP -n 100 --check
run write_lat -s 4096 -n 100 -m 1024 --check
# -b: both directions at once; -u 20 (ACKs may wait 4 s) as a sanitizer
# build on a busy machine may be slower than the default 67 ms
for t in write_bw read_bw send_bw atomic_bw; do
	run "$t" -b -n 200 -u 20 --check
done
run send_bw -b -s 65536 -n 100 -q 2 -u 20 --check --report-both --report_gbits
run write_bw -b -a -n 5 -u 20 --check
# -c UC: the tests perftest allows on UC; UC acknowledges nothing. UC
# sends nothing again, and the sender is not held back by ACKs: a burst
# larger than the veth's backlog (1000 frames) loses messages and the
# receiver waits for them (as perftest's does), so the bursts stay small
for t in write_bw send_bw write_lat send_lat; do
	run "$t" -c UC -s 4096 -n 200 --check --counters
	if grep -q '^ Connection type : UC' "$TMP/cli" && grep -q '^ Connection type : UC' "$TMP/srv" &&
	   ! grep -q '^acks_tx ' "$TMP/cli" "$TMP/srv"; then
		pass=$((pass + 1)); echo "ok   $t -c UC: UC on both sides, no ACK"
	else
		fails=$((fails + 1)); echo "FAIL $t -c UC: the banner or an ACK"; tail -8 "$TMP/srv"
	fi
done
run send_bw -c UC -s 4096 -n 100 -q 2 --check
# -c UD: send_bw and send_lat; a datagram is at most the MTU (the veth's
# 1500: 1024), a larger -s becomes it; nothing acknowledged. The bursts
# stay small for the veth's backlog, as UC's
for t in send_bw send_lat; do
	run "$t" -c UD -s 4096 -n 200 --check --counters
	if grep -q '^ Connection type : UD' "$TMP/cli" && grep -q '^ Connection type : UD' "$TMP/srv" &&
	   grep -qE '^ 1024 +200 ' "$TMP/cli" && ! grep -q '^acks_tx ' "$TMP/cli" "$TMP/srv"; then
		pass=$((pass + 1)); echo "ok   $t -c UD: UD on both sides, 1024 bytes, no ACK"
	else
		fails=$((fails + 1)); echo "FAIL $t -c UD: the banner, the size or an ACK"; tail -8 "$TMP/cli"
	fi
done
run send_bw -c UD -s 512 -n 100 -q 2 -b --check

# RoCE v2 over IPv6 (-x): the link-local GIDs, which the kernels carry and
# answer neighbour discovery for, and --ip6 ones only our ports answer for;
# both sides print the GID they use
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
for i in $(seq 50); do
	if ip -n "$NA" -6 addr show dev "va$$" scope link | grep -q inet6 &&
	   ! ip -n "$NA" -6 addr show dev "va$$" | grep -q tentative &&
	   ! ip -n "$NB" -6 addr show dev "vb$$" | grep -q tentative; then
		break
	fi
	sleep 0.1
done
gid_line() { # FILE: the local GID line perftest prints
	grep -m1 '^ GID: ' "$TMP/$1"
}
run write_bw -x 0 -s 65536 -n 100 --check
if gid_line cli | grep -q '^ GID: 254:128:' && gid_line srv | grep -q '^ GID: 254:128:'; then
	pass=$((pass + 1)); echo "ok   -x 0: link-local GIDs on both sides"
else
	fails=$((fails + 1)); echo "FAIL -x 0: GIDs $(gid_line cli) / $(gid_line srv)"
fi
SRV=(--ip6 fd94::1) CLI=(--ip6 fd94::2)
run read_bw -x 2 -n 200 --check
run send_bw -x 2 -b -s 4096 -n 100 -q 2 -u 20 --check
SRV=() CLI=()
run send_bw -c UD -x 0 -s 1024 -n 200 --check

# -e: each side sleeps on its completion channel, its engine on a thread
# (both sides, then one side only); the banner names the completion vector
for t in send_bw read_bw atomic_bw send_lat read_lat; do
	run "$t" -e -n 200 --check
done
if grep -qx " Test with events. Using va$$_comp0" "$TMP/srv" &&
   grep -qx " Test with events. Using vb$$_comp0" "$TMP/cli"; then
	pass=$((pass + 1)); echo "ok   -e banner"
else
	fails=$((fails + 1)); echo "FAIL -e banner"; head -5 "$TMP/srv"
fi
run send_bw -e -s 4096 -n 200 -q 2 --check
run send_bw -e -b -s 65536 -n 100 -u 20 --check
SRV=(-e) CLI=()
run send_bw -s 4096 -n 200 --check
SRV=() CLI=(-e)
run read_bw -s 4096 -n 200 --check
SRV=() CLI=()
expect "write_bw -e refused as perftest does" 2 "Events feature not available on WRITE verb" \
	"$PERF" write_bw -e --netdev "va$$"

# A server that never comes: the client gives up within its timeout.
start=$(date +%s)
ip netns exec "$NB" timeout -k 5 60 "$PERF" write_bw --netdev "vb$$" --timeout 2 10.231.7.1 \
	>"$TMP/cli" 2>&1
rc=$? el=$(( $(date +%s) - start ))
if [ $rc -eq 1 ] && [ $el -lt 20 ] && grep -q "couldn't connect" "$TMP/cli"; then
	pass=$((pass + 1)); echo "ok   unreachable server"
else
	fails=$((fails + 1)); echo "FAIL unreachable server (rc=$rc, ${el}s)"; cat "$TMP/cli"
fi

# The AF_XDP port (--link xdp), where this machine has AF_XDP.
if xdp_probe "$B/tests/helpers/afx_engines" "$NA" "va$$"; then
	SRV=(--link xdp) CLI=()
	run write_bw -s 65536 -n 100 --check
	run read_bw -n 200 --check
	SRV=() CLI=(--link xdp)
	run send_bw -s 4096 -n 100 -q 2 --check
	run atomic_bw -n 100 --check
	SRV=(--link xdp) CLI=(--link xdp --xdp-mode generic)
	for t in write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat; do
		run "$t" -n 200 --check
	done
	run write_bw -s 65536 -n 100 -q 2 --check
	run read_bw -a -n 5 --check
	run write_bw -D 2 -s 4096 --check
	SRV=() CLI=()
	# an interface MTU AF_XDP cannot carry: refused, saying what to do
	ip -n "$NA" link set "va$$" mtu 9000
	expect "--link xdp at MTU 9000" nz "use --link packet or an MTU <= 3822" \
		ip netns exec "$NA" timeout -k 5 30 "$PERF" write_bw --netdev "va$$" --link xdp --timeout 2
	ip -n "$NA" link set "va$$" mtu 1500
	# without the rights: refused, saying which are needed
	if command -v setpriv >/dev/null; then
		expect "--link xdp without rights" nz "perm: --link xdp: .*needs root" \
			ip netns exec "$NA" timeout -k 5 30 setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$PERF" write_bw --netdev "va$$" --link xdp --timeout 2
	fi
fi

# --link errors: a bad value
expect "--link bad value" 2 "choose packet or xdp" \
	"$PERF" write_bw --netdev "va$$" --link udp
expect "--xdp-mode bad value" 2 "choose auto, native or generic" \
	"$PERF" write_bw --netdev "va$$" --link xdp --xdp-mode fast
expect "--help documents --link" 0 "--link=packet\|xdp" "$PERF" --help

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
