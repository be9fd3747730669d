# shellcheck shell=bash
# The processes of one run, sourced by tests/interop/run: tcpdump on the
# wire, our tool in its namespace, rxe's tool as a guest job, the garbage
# sender. Every process is started by PID, bounded in time, and listed in
# BG_PIDS until it ended, so that the EXIT trap can end what is left.

# forget_pid PID: it ended (waited for), the trap no longer needs it
forget_pid() {
	local p keep=()
	for p in "${BG_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	BG_PIDS=("${keep[@]}")
}

# capture_start IFACE NAME: tcpdump on a wire interface into NAME.pcap.
# br0 sees every frame as it enters the bridge, so also those the loss rule
# drops afterwards; us-br (our port) shows what our engine really received.
# IPv6 neighbour discovery (RFC 4861: router solicitation .. redirect,
# ICMPv6 types 133-137), the IPv6 runs' ARP; not MLD
CAP_ND='(icmp6 and ip6[40] >= 133 and ip6[40] <= 137)'
CAP_PIDS=()
capture_start() {
	# not through in_wire: $! must be tcpdump itself (ip netns exec
	# execs it), not a subshell running a function
	# a 64 MiB buffer: on a loaded machine the default 2 MiB overflows
	ip netns exec "$NET_WIRE" tcpdump -i "$1" --immediate-mode -B 65536 -U -s 0 -Z root \
		-w "$RUN_DIR/$2.pcap" "udp port 4791 or arp or tcp port $OOB_PORT or $CAP_ND" \
		2>"$RUN_DIR/tcpdump-$2.err" &
	CAP_PIDS+=($!)
	BG_PIDS+=($!)
	local i
	for i in $(seq 50); do
		grep -qs "listening on" "$RUN_DIR/tcpdump-$2.err" && return 0
		sleep 0.1
	done
	fail "tcpdump on $1 did not start: $(head -n1 "$RUN_DIR/tcpdump-$2.err")"
}
capture_stop() { # [EXTRA]
	local p
	sleep 0.3 # the last frames
	for p in "${CAP_PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		forget_pid "$p"
	done
	CAP_PIDS=()
	# a capture with holes proves nothing about "every frame we sent";
	# a run that floods the wire by design (cap:partial: IBA's go-back-N
	# against a slower peer, kept as a baseline's figure) checks what
	# the capture holds and says what it missed
	for p in "$RUN_DIR"/tcpdump-*.err; do
		grep -qs '^0 packets dropped by kernel' "$p" && continue
		if [ "$(extra_word cap "${1:-}")" = partial ]; then
			note "cap:partial: $(grep -s 'dropped by kernel' "$p") (${p##*/}); the frames captured are checked"
		else
			fail "incomplete capture: $(grep -s 'dropped by kernel' "$p") (${p##*/})"
		fi
	done
}

# ours_start CMD LOG: our tool in the background in $NET_US, bounded
ours_start() {
	echo "$1" >>"$RUN_DIR/cmd.txt"
	timeout -k 5 "$RUN_TIMEOUT" ip netns exec "$NET_US" env \
		ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
		$1 >"$2" 2>&1 &
	OURS_PID=$!
	BG_PIDS+=("$OURS_PID")
}
# ours_wait [SECONDS]: its exit status; with SECONDS (the peer already
# failed, nothing will come) it is ended after that long
ours_wait() {
	local rc i
	if [ -n "${1:-}" ]; then
		for i in $(seq $(($1 * 10))); do
			kill -0 "$OURS_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$OURS_PID" 2>/dev/null
	fi
	wait "$OURS_PID"
	rc=$?
	forget_pid "$OURS_PID"
	return $rc
}

# rxe_start GUEST CMD ROLE: a job in the guest; servers signal when they
# listen. Sets RXE_JOB (and A_JOB for a job in guest a: its counters).
rxe_start() {
	local g=$1 cmd=$2 role=$3
	echo "guest $(basename "$g"): $cmd" >>"$RUN_DIR/cmd.txt"
	if [ "$role" = server ]; then
		RXE_JOB=$(vm_submit "$g" "$(rxe_server_job "$cmd" "$RUN_TIMEOUT")")
	else
		RXE_JOB=$(vm_submit "$g" "$(rxe_client_job "$cmd" "$RUN_TIMEOUT")")
	fi
	[ "$g" = "$A" ] && A_JOB=$RXE_JOB
	return 0
}
rxe_listening() { # GUEST JOB: wait for the server's marker
	local i
	for i in $(seq 200); do
		[ -e "$1/ctl/jobs/$2.listening" ] && return 0
		sleep 0.1
	done
	return 1
}
rxe_finish() { # GUEST JOB LOG [SECONDS]: wait, save output, return the job's status
	local rc
	vm_wait "$1" "$2" "${4:-$RUN_TIMEOUT}" >"$3" 2>&1
	rc=$?
	if [ $rc = 124 ]; then
		# ended by its PID; its output is still worth having
		vm_kill "$1" "$2"
		vm_wait "$1" "$2" 5 >"$3" 2>&1
		echo "(ended by the harness: still running after ${4:-$RUN_TIMEOUT} s)" >>"$3"
	fi
	return $rc
}

# ours_listening [cm]: our server's out-of-band port is open (or it
# ended); with cm (rping, perftest's -R: no TCP port), its process has
# been up a second: a REQ that comes before its QP1 is resent by the
# peer's CM
ours_listening() {
	local i
	if [ "${1:-}" = cm ]; then
		sleep 1
		kill -0 "$OURS_PID" 2>/dev/null
		return
	fi
	for i in $(seq 200); do
		net_listening "$NET_US" "$OOB_PORT" && return 0
		kill -0 "$OURS_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# garbage_start: the bad-frame sender, waiting on the bridge for a live
# frame to our engine; returns once its socket is open (or it ended, or
# 20 s went by), so that the run it watches does not start before it: a
# Python start on a machine busy with a TCG guest can take longer than a
# whole run
garbage_start() {
	local i
	rm -f "$RUN_DIR/garbage.ready"
	ip netns exec "$NET_WIRE" python3 "$HERE/garbage.py" --iface br0 --dst-mac "$NET_US_MAC" \
		--count 5 --gap-ms 10 --timeout 30 --ready "$RUN_DIR/garbage.ready" \
		>"$RUN_DIR/garbage.json" 2>"$RUN_DIR/garbage.err" &
	GARBAGE_PID=$!
	BG_PIDS+=("$GARBAGE_PID")
	for i in $(seq 200); do
		[ -e "$RUN_DIR/garbage.ready" ] && return 0
		kill -0 "$GARBAGE_PID" 2>/dev/null || return 0
		sleep 0.1
	done
}
garbage_wait() {
	wait "$GARBAGE_PID" || fail "garbage sender failed: $(tail -n1 "$RUN_DIR/garbage.err")"
	forget_pid "$GARBAGE_PID"
}
