#!/usr/bin/env bash
# roce-perf and roce-pingpong without a network: server and client in one
# process over the in-memory link (--memlink-selftest), every test with the
# content check (and with -c UC and -c UD where perftest allows them), the bandwidth
# tests with -b, --report-both and --report_gbits too, write_bw and send_bw
# on 256 QPs; and the command-line
# errors (exit status 2, a message), -q beyond the device (exit status 1).
# Usage: perf_selftest.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir}
PERF=$B/tools/roce-perf PP=$B/tools/roce-pingpong UPP=$B/tools/roce-uc-pingpong
DPP=$B/tools/roce-ud-pingpong
fails=0 pass=0
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

check() { # name, then a command; its status must be $want and $OUT match $pat
	local name=$1; shift
	timeout -k 5 120 "$@" >"$OUT" 2>&1
	local rc=$?
	if [ $rc -eq "$want" ] && grep -qE -- "$pat" "$OUT"; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (rc=$rc, want $want, /$pat/)"; tail -20 "$OUT"
	fi
}

want=0
for t in write_bw read_bw send_bw atomic_bw; do
	pat='content check: passed'
	check "$t" "$PERF" "$t" --memlink-selftest -n 300 --check --timeout 20
	size=4096
	[ $t = atomic_bw ] && size=8
	pat="^ $size +300 "
	check "$t table" "$PERF" "$t" --memlink-selftest -n 300 -s $size --timeout 20
done
for t in write_lat read_lat send_lat; do
	pat='t_typical\[usec\]'
	check "$t" "$PERF" "$t" --memlink-selftest -n 300 --check --timeout 20
done
# -R: the exchange and the QPs through the RDMA CM on the in-memory link
# (perftest's rdma_cm mode), each side saying so
for t in write_bw read_bw send_bw write_lat; do
	pat='content check: passed'
	[ $t = write_lat ] && pat='t_typical\[usec\]'
	check "$t -R" "$PERF" "$t" -R --memlink-selftest -n 200 --check --timeout 20
	grep -qP '^ rdma_cm QPs\t : ON$' "$OUT" && [ "$(grep -c '^ Data ex. method : rdma_cm' "$OUT")" = 2 ] ||
		{ fails=$((fails + 1)); echo "FAIL $t -R: not rdma_cm on both sides"; }
done
pat='^ 4096 +300 '
check "write_bw -R -q 3" "$PERF" write_bw -R -q 3 --memlink-selftest -n 100 -s 4096 --timeout 20
# -R -c UD: the UD QPs through SIDR (the latency test's server learns the
# client's QPN from its first datagram)
pat='content check: passed'
check "send_bw -R -c UD" "$PERF" send_bw -R -c UD --memlink-selftest -n 200 -s 1024 --check --timeout 20
pat='t_typical\[usec\]'
check "send_lat -R -c UD" "$PERF" send_lat -R -c UD --memlink-selftest -n 200 -s 256 --timeout 20
pat='^ 8388608 +5 '
check "write_bw -a" "$PERF" write_bw --memlink-selftest -a -n 5 --check --timeout 20
pat='content check: passed'
check "send_bw -q 4" "$PERF" send_bw --memlink-selftest -q 4 -n 100 -s 1000 --check --timeout 20
# many QPs (perftest allows up to 16384): every QP's keys cross the TCP
# exchange, every QP's region gets its own pattern and is checked, and
# the table counts the messages of all QPs (perftest: iters x QPs)
manyqp() { # name, then roce-perf's arguments (-q 256 -n 50)
	local name=$1 why=; shift
	timeout -k 5 120 "$PERF" "$@" >"$OUT" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || why="rc=$rc"
	[ "$(grep -c '^ Number of qps   : 256' "$OUT")" = 2 ] || why="$why; not 256 QPs on both sides"
	[ "$(grep -c ' remote address: ' "$OUT")" = 512 ] || why="$why; not 256 remote keys on each side"
	for a in local remote; do
		[ "$(side client | grep " $a address: " | grep -o 'QPN 0x[0-9a-f]*' | sort -u | wc -l)" = 256 ] ||
			why="$why; the client's $a QPNs are not 256 distinct ones"
	done
	grep -q 'content check: passed' "$OUT" || why="$why; no content check"
	[ "$(grep -cE '^ 4096 +12800 ' "$OUT")" = 2 ] || why="$why; not 12800 messages on both sides"
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (${why#; })"; grep -v 'address\|GID' "$OUT" | tail -30
	fi
}
pat='^ 2 +[0-9]+ +[0-9.]+ +[0-9.]+ *$'
check "send_lat -D" "$PERF" send_lat --memlink-selftest -D 2 --timeout 20
# -c UC: the banner says so, the data arrives, nothing is acknowledged
for t in write_bw send_bw write_lat send_lat; do
	pat='content check: passed'
	check "$t -c UC" "$PERF" "$t" -c UC --memlink-selftest -n 300 --check --counters --timeout 20
	if [ "$(grep -c '^ Connection type : UC' "$OUT")" != 2 ] || grep -q '^acks_tx ' "$OUT"; then
		fails=$((fails + 1)); echo "FAIL $t -c UC: not UC on both sides, or an ACK"
	fi
done
# perftest's UC receive depth: a receive per message (-n), up to 16000
pat='^ RX depth        : 600$'
check "send_bw -c UC rx depth" "$PERF" send_bw -c UC --memlink-selftest -n 600 --timeout 20
pat='^100 iters in'
check "pingpong -c" "$PP" --memlink-selftest -c -s 10000 -n 100 --timeout 20
check "uc-pingpong -c" "$UPP" --memlink-selftest -c -s 10000 -n 100 --timeout 20
# -c UD: send_bw and send_lat, the banner, the data past the GRH area,
# nothing acknowledged; a size over the MTU (the in-memory link's 4096)
# becomes it; -a stops at it, saying so; UD's receive depth as UC's
for t in send_bw send_lat; do
	pat='content check: passed'
	check "$t -c UD" "$PERF" "$t" -c UD --memlink-selftest -n 300 --check --counters --timeout 20
	if [ "$(grep -c '^ Connection type : UD' "$OUT")" != 2 ] || grep -q '^acks_tx ' "$OUT"; then
		fails=$((fails + 1)); echo "FAIL $t -c UD: not UD on both sides, or an ACK"
	fi
done
pat='^ 4096 +300 '
check "send_bw -c UD -s 8192: the MTU" "$PERF" send_bw -c UD -s 8192 --memlink-selftest -n 300 --check --timeout 20
pat='Max msg size in UD is MTU 4096'
check "send_bw -c UD -a" "$PERF" send_bw -c UD -a --memlink-selftest -n 20 --timeout 20
if grep -qE '^ 8192 ' "$OUT" || ! grep -qE '^ 4096 +20 ' "$OUT"; then
	fails=$((fails + 1)); echo "FAIL send_bw -c UD -a: not 2..4096"
fi
pat='^ RX depth        : 600$'
check "send_bw -c UD rx depth" "$PERF" send_bw -c UD --memlink-selftest -n 600 --timeout 20
pat='content check: passed'
check "send_bw -c UD -b -q 2" "$PERF" send_bw -c UD -b -q 2 -s 1000 --memlink-selftest -n 200 --check --timeout 20
# roce-ud-pingpong: the exchange, its ": GID" local line, -c past the GRH area
pat='^100 iters in'
check "ud-pingpong -c" "$DPP" --memlink-selftest -c -s 4096 -n 100 --timeout 20
pat='^  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}: GID ::ffff:10\.0\.0\.2$'
check "ud-pingpong local line" "$DPP" --memlink-selftest -n 10 --timeout 20
pat='^2048000 bytes in'
check "ud-pingpong default size 1024" "$DPP" --memlink-selftest --timeout 20
# --counters: the engine's non-zero counters as "name value" lines at the end
# -b: both sides print the Bidirectional banner and their TX depth, pass
# the content check, and print the same line: the sum of both directions
# (each side's size and iterations, the same -n on both). --report-both:
# the client's local table is the server's remote one and the other way
# round, and the sum's average is the two averages added (to the last
# digit's rounding). --report_gbits: perftest's Gb/sec header on both.
side() { # client|server: that side's part of $OUT
	if [ "$1" = client ]; then sed -n '/^==== client/,/^==== server/p' "$OUT"
	else sed -n '/^==== server/,$p' "$OUT"; fi
}
results() { grep -E '^ [0-9]+ +[0-9]+ +[0-9.]+ ' | head -n "${1:-1}"; }
table() { # TITLE: the first result line after the line " TITLE"
	awk -v t=" $1" 'index($0, t) == 1 { f = 1 } f && /^ [0-9]+ +[0-9]+ / { print; exit }'
}
# Result lines' figures to two decimals: each side of a -b run picks
# perftest's six-decimal form from its own average (print_full_bw_report),
# so two sides print the same figures in different forms when slow.
figs() { awk '{ printf "%s %s", $1, $2; for (i = 3; i <= NF; i++) printf " %.2f", $i; print "" }'; }
duplex() { # name, expected title end of the local/remote lines, then roce-perf's arguments
	local name=$1 end=$2 why= rc c s cl sl; shift 2
	timeout -k 5 120 "$PERF" "$@" >"$OUT" 2>&1
	rc=$?
	[ $rc -eq 0 ] || why="rc=$rc"
	for w in client server; do
		side $w | grep -q 'Bidirectional BW Test$' || why="$why; $w: no Bidirectional banner"
		side $w | grep -q '^ TX depth' || why="$why; $w: no TX depth"
		case " $* " in *" --check "*)
			side $w | grep -q 'content check: passed' || why="$why; $w: no content check" ;;
		esac
		case " $* " in *" --report_gbits "*)
			side $w | grep -qF ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]' ||
				why="$why; $w: no Gb/sec header" ;;
		esac
	done
	c=$(side client | sed '/Local results/,$d' | results 30 | figs)
	s=$(side server | sed '/Local results/,$d' | results 30 | figs)
	[ -n "$c" ] && [ "$c" = "$s" ] || why="$why; the summed lines differ: [$c] [$s]"
	case " $* " in *" --report-both "*)
		for w in client server; do
			side $w | grep -qx " Local results:$end" || why="$why; $w: no ' Local results:$end'"
			side $w | grep -qx " Remote results:$end" || why="$why; $w: no ' Remote results:$end'"
		done
		cl=$(side client | table 'Local results' | figs) sl=$(side server | table 'Remote results' | figs)
		[ -n "$cl" ] && [ "$cl" = "$sl" ] || why="$why; client's local [$cl] is not server's remote [$sl]"
		[ "$(side client | table 'Remote results' | figs)" = "$(side server | table 'Local results' | figs)" ] ||
			why="$why; client's remote is not server's local"
		side client | awk -v a="$(side client | table 'Local results' | awk '{ print $4 }')" \
			-v b="$(side client | table 'Remote results' | awk '{ print $4 }')" \
			'/^ [0-9]+ +[0-9]+ / { d = $4 - a - b; exit } END { exit !(d < 0.015 && d > -0.015) }' ||
			why="$why; the summed average is not local + remote" ;;
	esac
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name (${why#; })"; tail -40 "$OUT"
	fi
}
# -u 20: ACKs may wait 4 s. Both directions at once double each engine's
# work; a sanitizer build on a busy machine can be slower than perftest's
# 67 ms default, and a lossless link needs no quicker retransmission.
for t in write_bw read_bw send_bw atomic_bw; do
	duplex "$t -b --check" "" "$t" --memlink-selftest -b -n 300 -u 20 --check --timeout 20
done
duplex "write_bw -b --report-both" " " write_bw --memlink-selftest -b -n 200 -s 4096 -u 20 --report-both --timeout 20
duplex "send_bw -b --report-both --report_gbits" " " send_bw --memlink-selftest --bidirectional \
	-n 200 -s 4096 -u 20 --report-both --report_gbits --check --timeout 20
duplex "atomic_bw -b --report-both" "" atomic_bw --memlink-selftest -b -n 200 -u 20 --report-both --timeout 20
duplex "read_bw -b -a" "" read_bw --memlink-selftest -b -a -n 5 -u 20 --check --timeout 30
duplex "send_bw -b -a -q 2" "" send_bw --memlink-selftest -b -a -n 5 -q 2 -u 20 --check --timeout 30
# -u 17: 256 QPs' ACK timers at once on a busy machine
manyqp "write_bw -q 256" write_bw --memlink-selftest -q 256 -n 50 -s 4096 -u 17 --check --timeout 30
manyqp "send_bw -q 256" send_bw --memlink-selftest -q 256 -n 50 -s 4096 -u 17 --check --timeout 30
duplex "send_bw -b -q 64" "" send_bw --memlink-selftest -b -q 64 -n 50 -s 4096 -u 20 --check --timeout 30
# without -b, --report-both changes nothing; --report_gbits the header
pat='BW peak\[Gb/sec\]    BW average\[Gb/sec\]   MsgRate\[Mpps\]'
check "write_bw --report_gbits" "$PERF" write_bw --memlink-selftest -n 100 --report_gbits --report-both --timeout 20
if grep -q 'results' "$OUT"; then fails=$((fails + 1)); echo "FAIL --report-both without -b printed tables"; fi
# with -D, send_bw -b prints what each side counted, no exchange
pat='^ 4096 +[0-9]+ +0\.00 +[0-9.]+'
check "send_bw -b -D" "$PERF" send_bw --memlink-selftest -b -D 2 -s 4096 -u 20 --timeout 20

pat='^tx_pkts [1-9][0-9]*$'
check "write_bw --counters" "$PERF" write_bw --memlink-selftest -n 20 --counters --timeout 20
pat='^acks_tx [1-9][0-9]*$'
check "pingpong --counters" "$PP" --memlink-selftest -n 5 --counters --timeout 20

want=2
pat='name the test first'
check "no test" "$PERF" -s 64
pat="test 'write_bandwidth'"
check "bad test" "$PERF" write_bandwidth
pat="iterations '3'"
check "too few iterations" "$PERF" write_bw -n 3 --memlink-selftest
pat='message size cannot be changed'
check "atomic size" "$PERF" atomic_bw -s 64 --memlink-selftest
pat='UC is not supported in librdmacm'
check "-R -c UC" "$PERF" send_bw -R -c UC --memlink-selftest
pat='-R and --mmap cannot go together'
check "-R --mmap" "$PERF" write_bw -R --mmap /dev/null --memlink-selftest
pat='--netdev'
check "no interface" "$PERF" read_bw 10.0.0.1
pat='Bidirectional is only available in BW test'
for t in write_lat read_lat send_lat; do
	check "$t -b refused" "$PERF" "$t" -b --memlink-selftest
done
# -q outside perftest's 1..16384: its words, a bad command line
pat="num of Qps '0': should be between 1 and 16384"
check "-q 0" "$PERF" write_bw -q 0 --memlink-selftest
pat="num of Qps '16385': should be between 1 and 16384"
check "-q 16385" "$PERF" send_bw -q 16385 --memlink-selftest
# -c: perftest's refusals, in its words
pat='UC connection not possible in READ/ATOMIC verbs'
check "read_bw -c UC" "$PERF" read_bw -c UC --memlink-selftest
check "atomic_bw -c UC" "$PERF" atomic_bw -c UC --memlink-selftest
pat='UD connection only possible in SEND verb'
check "write_bw -c UD" "$PERF" write_bw -c UD --memlink-selftest
check "read_lat -c UD" "$PERF" read_lat -c UD --memlink-selftest
pat="connection type 'XRC': not supported by this engine"
check "send_bw -c XRC" "$PERF" send_bw -c XRC --memlink-selftest
pat='Invalid Connection type. Please choose from \{RC,UC,UD,XRC,DC,SRD\}'
check "-c uc" "$PERF" send_bw -c uc --memlink-selftest
pat="bad MTU '1000'"
check "pingpong MTU" "$PP" -m 1000 --memlink-selftest
# ibv_uc_pingpong has none of rc_pingpong's -o -O -P -t -j -N
for o in -o -O -P -t -j -N; do
	pat="roce-uc-pingpong: unknown option '$o'"
	check "uc-pingpong $o refused" "$UPP" $o --memlink-selftest
done
# ibv_ud_pingpong has none of rc_pingpong's -m -o -O -P -t -j -N
for o in -m -o -O -P -t -j -N; do
	pat="roce-ud-pingpong: unknown option '$o'"
	check "ud-pingpong $o refused" "$DPP" $o 1024 --memlink-selftest
done
want=1
pat='on-demand paging'
check "pingpong odp" "$PP" -o --memlink-selftest
pat='Requested size larger than port MTU \(4096\)'
check "ud-pingpong -s over the MTU" "$DPP" -s 4097 --memlink-selftest --timeout 5
# -q within perftest's range but beyond the device's QPs: the test fails
# (both sides), naming what the device offers
pat="server\).*Couldn't create 16384 QPs: the device offers 16367 \(QPNs 0x11 to 0x3fff\)"
check "-q 16384 beyond the device" "$PERF" write_bw -q 16384 --memlink-selftest --timeout 5
want=0
pat='Usage'
check "perf --help" "$PERF" --help
check "pingpong --help" "$PP" --help
pat="^  roce-uc-pingpong --netdev IF .*<host>|Options \(ibv_uc_pingpong's\)"
check "uc-pingpong --help" "$UPP" --help
if grep -q -- '--ts' "$OUT"; then fails=$((fails + 1)); echo "FAIL uc-pingpong --help offers -t"; fi
pat="Options \(ibv_ud_pingpong's\)"
check "ud-pingpong --help" "$DPP" --help
if grep -qE -- '--ts|--mtu' "$OUT"; then fails=$((fails + 1)); echo "FAIL ud-pingpong --help offers -t or -m"; fi
pat='-q, --qp=<n> .*1\.\.16384 as perftest'
check "perf --help: -q's range" "$PERF" write_bw --help
pat='no more than the device offers \(16367 here\)'
check "perf --help: the device's QPs" "$PERF" --help
pat='^Version: 6.06$'
check "perf -V" "$PERF" write_bw -V

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
