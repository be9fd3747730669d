#!/usr/bin/env bash
# roce-run's refusals, each a clear message and its exit status before
# PROGRAM runs: usage (2), no such interface, no CAP_NET_RAW, the
# interface held by another roce-run (ibv_asyncwatch holds it, blocked on
# the device's asynchronous events), a statically linked program or
# script interpreter, a file neither program nor script (1), a program
# not found (127); and --help (0). In a network namespace with a veth made here.
# Usage: roce_run_errors.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=rre-a-$$ NB=rre-b-$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "roce_run_errors: SKIP (needs root and network namespaces)"; exit 0
fi
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "ea$$" "eb$$" 10.234.8.1/24 10.234.8.2/24 || { echo "FAIL: veth setup"; exit 1; }

# expect STATUS REGEX -- ARGS...: roce-run ARGS in NA exits STATUS, its
# stderr matches REGEX, and nothing ran (no output on stdout)
expect() {
	local want=$1 re=$2 rc
	shift 3
	ip netns exec "$NA" timeout -k 5 20 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" "$@" \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc = "$want" ] || fail "roce-run $*: exit $rc, not $want ($(cat "$TMP/err"))"
	grep -qE -- "$re" "$TMP/err" || fail "roce-run $*: stderr '$(cat "$TMP/err")' lacks /$re/"
	[ $(grep -c . "$TMP/err") = 1 ] || [ "$want" = 2 ] ||
		fail "roce-run $*: more than one line on stderr"
	[ -s "$TMP/out" ] && fail "roce-run $*: printed on stdout: $(cat "$TMP/out")"
}

expect 2 "--netdev IFNAME" -- -- ibv_devices
expect 2 "no PROGRAM" -- --netdev "ea$$"
expect 2 "--ip 10.1: not an IPv4 address" -- --netdev "ea$$" --ip 10.1 -- ibv_devices
expect 2 "--link pigeon: packet or xdp" -- --netdev "ea$$" --link pigeon -- ibv_devices
expect 2 "unrecognized option" -- --netdve "ea$$" -- ibv_devices
expect 2 "--ibdev \.\./x: not a device name" -- --netdev "ea$$" --ibdev ../x -- ibv_devices
expect 2 "--ibdev : not a device name" -- --netdev "ea$$" --ibdev "" -- ibv_devices
expect 2 "ROCE_CC_ALGO=timely: 'timely' is not an algorithm \(dcqcn, swift\)" -- --netdev "ea$$" --cc-algo timely -- ibv_devices
expect 1 "nosuch0: no such interface" -- --netdev nosuch0 -- ibv_devices
expect 127 "no-such-program-$$: command not found" -- --netdev "ea$$" -- no-such-program-$$
expect 127 "/nonexistent/prog: not an executable file" -- --netdev "ea$$" -- /nonexistent/prog
expect 1 "/sbin/ldconfig is statically linked" -- --netdev "ea$$" -- /sbin/ldconfig
printf '#!/sbin/ldconfig\n' >"$TMP/script.sh"; chmod +x "$TMP/script.sh"
expect 1 "script.sh: its interpreter /sbin/ldconfig is statically linked" -- --netdev "ea$$" -- "$TMP/script.sh"
printf 'just text\n' >"$TMP/text"; chmod +x "$TMP/text"
expect 1 "text is neither an ELF program nor a script" -- --netdev "ea$$" -- "$TMP/text"
head -c 100 /dev/urandom >"$TMP/junk"; printf '\177ELF\002\001' | dd of="$TMP/junk" conv=notrunc status=none
chmod +x "$TMP/junk"
expect 1 "malformed ELF file" -- --netdev "ea$$" -- "$TMP/junk"

# no CAP_NET_RAW: as nobody, with no capabilities left
chmod o+x "$TMP"
ip netns exec "$NA" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all "$RR" --netdev "ea$$" -- ibv_devices >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] || fail "roce-run without CAP_NET_RAW: exit $rc, not 1"
grep -q "needs CAP_NET_RAW" "$TMP/err" || fail "roce-run without CAP_NET_RAW says '$(cat "$TMP/err")'"

# the interface held: a first roce-run whose program keeps the device open
if rr_have ibv_asyncwatch; then
	# not through rr(): $! must be the process that takes the signal
	# (timeout, which passes it on to the program)
	ip netns exec "$NA" timeout -k 5 60 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "ea$$" -- \
		ibv_asyncwatch >"$TMP/w1" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do grep -q "roce0: async event FD" "$TMP/w1" && break; sleep 0.1; done
	grep -q "roce0: async event FD" "$TMP/w1" || fail "ibv_asyncwatch did not open roce0: $(cat "$TMP/w1")"
	expect 1 "ea$$ is already held by another roce-run" -- --netdev "ea$$" -- ibv_devices
	# the same name in another namespace is another interface
	ip -n "$NB" link set "eb$$" name "ea$$"
	ip netns exec "$NB" timeout -k 5 20 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "ea$$" -- ibv_devices \
		>"$TMP/out" 2>&1 || fail "roce-run in another namespace refused: $(cat "$TMP/out")"
	kill "${pids[-1]}" 2>/dev/null
	wait "${pids[-1]}" 2>/dev/null
	# released with its program
	ip netns exec "$NA" timeout -k 5 20 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "ea$$" -- ibv_devices \
		>"$TMP/out" 2>&1 || fail "the lock outlived its program: $(cat "$TMP/out")"
else
	echo "roce_run_errors: the held-interface case skipped (no ibv_asyncwatch)"
fi

"$RR" --help >"$TMP/out" 2>&1 || fail "roce-run --help exited non-zero"
grep -q "^usage: roce-run --netdev IFNAME" "$TMP/out" || fail "roce-run --help prints no usage"

if [ $fails = 0 ]; then
	echo "roce_run_errors: ok"
	exit 0
fi
exit 1
