#!/usr/bin/env bash
# roce-perf and roce-pingpong without a network: server and client in one
# process over the in-memory link (--memlink-selftest), every test with the
# content check; and the command-line errors (exit status 2, a message).
# Usage: perf_selftest.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir}
PERF=$B/tools/roce-perf PP=$B/tools/roce-pingpong
fails=0 pass=0
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

check() { # name, then a command; its status must be $want and $OUT match $pat
	local name=$1; shift
	timeout 120 "$@" >"$OUT" 2>&1
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
pat='^ 8388608 +5 '
check "write_bw -a" "$PERF" write_bw --memlink-selftest -a -n 5 --check --timeout 20
pat='content check: passed'
check "send_bw -q 4" "$PERF" send_bw --memlink-selftest -q 4 -n 100 -s 1000 --check --timeout 20
pat='^ 2 +[0-9]+ +[0-9.]+ +[0-9.]+ *$'
check "send_lat -D" "$PERF" send_lat --memlink-selftest -D 2 --timeout 20
pat='^100 iters in'
check "pingpong -c" "$PP" --memlink-selftest -c -s 10000 -n 100 --timeout 20
# --counters: the engine's non-zero counters as "name value" lines at the end
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
pat="unknown or unsupported option '-R'"
check "rdma_cm refused" "$PERF" write_bw -R --memlink-selftest
pat='--netdev'
check "no interface" "$PERF" read_bw 10.0.0.1
pat="bad MTU '1000'"
check "pingpong MTU" "$PP" -m 1000 --memlink-selftest
want=1
pat='on-demand paging'
check "pingpong odp" "$PP" -o --memlink-selftest
want=0
pat='Usage'
check "perf --help" "$PERF" --help
check "pingpong --help" "$PP" --help
pat='^Version: 6.06$'
check "perf -V" "$PERF" write_bw -V

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
