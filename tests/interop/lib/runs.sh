# shellcheck shell=bash
# One run of the matrix, sourced by tests/interop/run: both sides in the
# right order, the captures, then the checks of lib/check.sh. Each run
# writes its files into $RUN_DIR and its verdict into $RUN_DIR/result.

# xdp_available: can our tools open the AF_XDP port on $NET_US_IF? Asked
# once (roce-pingpong opens its port, then fails to reach a server on
# loopback); "no" only when the port says AF_XDP is not supported or not
# permitted here: any other trouble is the runs' to report.
xdp_available() {
	if [ ! -f "$WORK/xdp-probe" ]; then
		timeout 20 ip netns exec "$NET_US" "$(ours_tool rc_pingpong)" --netdev "$NET_US_IF" \
			--ip "$NET_US_IP" --link xdp --timeout 1 -p 9 127.0.0.1 >"$WORK/xdp-probe.out" 2>&1
		grep -m1 -E ': (unsupported|perm): --link xdp:' "$WORK/xdp-probe.out" >"$WORK/xdp-probe"
	fi
	[ ! -s "$WORK/xdp-probe" ]
}

run_ours() { # id tool role mtu size iters loss extra
	local id=$1 tool=$2 role=$3 mtu=$4 size=$5 iters=$6 loss=$7 extra=$8 bin
	local rc_ours rc_rxe perf_tool=$tool peer_tool
	[ "$tool" = garbage ] && perf_tool=write_bw
	# rights: the client asks for READs, the server grants WRITEs only
	if [ "$tool" = rights ]; then
		perf_tool=write_bw
		[ "$role" = client ] && perf_tool=read_bw
	fi
	peer_tool=$(peer_tool_for "$tool" "$role" "$perf_tool")
	bin=$(ours_tool "$perf_tool")
	is_debian "$extra" && bin=$BUILD/tools/roce-run
	if [ ! -x "$bin" ]; then
		fail "our tool $(basename "$bin") is not built ($bin)"
		return
	fi
	if [ "$tool" = mpi_pingpong ] && [ -z "$MPI_DIR" ]; then
		fail "mpi_pingpong for our side is not built: $(cat "$WORK/mpi/err" 2>/dev/null)"
		return
	fi
	if uses_xdp "$extra" && ! xdp_available; then
		skip "AF_XDP unavailable here: $(cat "$WORK/xdp-probe")"
		return
	fi
	local mfile
	mfile=$(mmap_file "$extra")
	if [ -n "$mfile" ] && ! mmap_prepare "$mfile"; then
		fail "cannot make the --mmap file $mfile"
		return
	fi
	stage_prepare "$extra"
	capture_start br0 wire
	# what our port received: after the loss or the CE rule
	{ [ "$loss" != 0 ] || [ -n "$(ce_mode "$extra")" ]; } && capture_start us-br ours-port
	if [ "$role" = server ]; then
		ours_start "$(ours_cmd "$perf_tool" "$size" "$iters" "$mtu" "$extra")" "$RUN_DIR/ours.log"
		# (our orted listens on nothing: host-jobs starts it when the
		# guest's mpirun asks for it)
		if { ! is_app "$tool" || app_has_server "$tool"; } &&
		   ! ours_listening "$(uses_cm "$tool $extra" && echo cm)"; then
			fail "our server does not listen on TCP $OOB_PORT"
		else
			[ "$tool" = garbage ] && garbage_start
			rxe_start "$A" "$(rxe_cmd "$peer_tool" "$size" "$iters" "$mtu" "$extra" "$NET_US_IP")" client
			rxe_finish "$A" "$RXE_JOB" "$RUN_DIR/rxe.log"
			rc_rxe=$?
		fi
		# a failed client leaves our server waiting for nothing
		if is_app "$tool" && app_server_persists "$tool"; then
			ours_wait 1    # qperf's server serves on: ended here
			rc_ours=0
		elif [ "${rc_rxe:-1}" = 0 ]; then ours_wait; rc_ours=$?
		else ours_wait 5; rc_ours=$?; fi
	elif is_app "$tool" && ! app_has_server "$tool"; then
		# our mpirun starts rank 1's orted in the guest itself (guest-rsh):
		# its status is mpirun's
		ours_start "$(ours_cmd "$perf_tool" "$size" "$iters" "$mtu" "$extra" "$A_IP")" "$RUN_DIR/ours.log"
		ours_wait
		rc_ours=$?
		rc_rxe=0
	else
		rxe_start "$A" "$(rxe_cmd "$peer_tool" "$size" "$iters" "$mtu" "$extra")" server
		if ! rxe_listening "$A" "$RXE_JOB"; then
			fail "rxe server did not start listening"
		fi
		[ "$tool" = garbage ] && garbage_start
		ours_start "$(ours_cmd "$perf_tool" "$size" "$iters" "$mtu" "$extra" "$A_IP")" "$RUN_DIR/ours.log"
		ours_wait
		rc_ours=$?
		if is_app "$tool" && app_server_persists "$tool"; then
			vm_kill "$A" "$RXE_JOB"     # qperf's server serves on
			rxe_finish "$A" "$RXE_JOB" "$RUN_DIR/rxe.log" 10
			rc_rxe=0
		elif [ $rc_ours = 0 ]; then
			rxe_finish "$A" "$RXE_JOB" "$RUN_DIR/rxe.log"
			rc_rxe=$?
		else
			rxe_finish "$A" "$RXE_JOB" "$RUN_DIR/rxe.log" 5
			rc_rxe=$?
		fi
	fi
	[ "$tool" = garbage ] && [ -n "${GARBAGE_PID:-}" ] && garbage_wait
	GARBAGE_PID=
	capture_stop "$extra"
	if [ "$tool" = rights ]; then
		check_rights "$role" "${rc_ours:-}" "${rc_rxe:-}"
	else
		check_exits "$role" "${rc_ours:-}" "${rc_rxe:-}"
	fi
	counters_parse "$RUN_DIR/ours.log" >"$RUN_DIR/counters.txt"
	# (an application's -e is its own: fi_pingpong's endpoint type)
	is_app "$tool" || check_events "$perf_tool" "$role" "$extra"

	pcap_select "$RUN_DIR/wire.pcap" "$RUN_DIR/ours.pcap" "ether src $NET_US_MAC and udp dst port 4791"
	local sends=0
	sends_data "$perf_tool" "$role" "$extra" && sends=1
	if is_ud "$tool" "$extra"; then
		# a UD receiver answers nothing either
		[ "$sends" = 0 ] || check_wire "$RUN_DIR/ours.pcap" ours "$mtu" "$size" "$sends"
		local cm=0
		case " $extra " in *" -R "*) cm=1 ;; esac
		check_ud "$RUN_DIR/wire.pcap" "$RUN_DIR/ours.pcap" "$sends" "$cm"
	elif is_uc "$tool" "$extra"; then
		# a UC receiver answers nothing: no frame to check but none
		[ "$sends" = 0 ] || check_wire "$RUN_DIR/ours.pcap" ours "$mtu" "$size" "$sends"
		check_uc "$RUN_DIR/wire.pcap" "$RUN_DIR/ours.pcap" "$sends"
	else
		check_wire "$RUN_DIR/ours.pcap" ours "$mtu" "$size" "$sends"
	fi
	note "ours on the wire: $(pcap_stats "$RUN_DIR/ours.pcap")"
	is_app "$tool" && check_app_frames "$RUN_DIR/ours.pcap" "$iters" "$tool"
	# the CM's handshake and teardown, both ways on the wire
	# (a -R client of ours may meet perftest's late listener: REJ 8)
	uses_cm "$(rxe_cmd "$peer_tool" "$size" "$iters" "$mtu" "$extra")" &&
		check_cm "$RUN_DIR/wire.pcap" "$([ "$role" = client ] && [ "$tool" != rping ] && echo rej8)" "$loss"
	[ "$tool" = rping ] && check_rping "$role" "$iters" "$extra"
	if is_bidir "$extra"; then
		pcap_select "$RUN_DIR/wire.pcap" "$RUN_DIR/rxe.pcap" "ether dst $NET_US_MAC and udp dst port 4791"
		check_requests "$RUN_DIR/ours.pcap" ours "$perf_tool"
		check_requests "$RUN_DIR/rxe.pcap" rxe "$perf_tool"
	fi
	case "$perf_tool" in
	srq_pingpong) check_srq "$RUN_DIR/ours.log" "$RUN_DIR/rxe.log" "$RUN_DIR/ours.pcap" "$extra" ;;
	*_bw) check_bw_reports "$RUN_DIR/ours.log" "$RUN_DIR/rxe.log" "$(extra_for rxe "$extra")"
		check_qps "$RUN_DIR/ours.log" "$RUN_DIR/rxe.log" "$RUN_DIR/ours.pcap" "$extra" ;;
	esac
	if [ "$loss" != 0 ]; then
		pcap_select "$RUN_DIR/ours-port.pcap" "$RUN_DIR/to-ours.pcap" "ether dst $NET_US_MAC and udp dst port 4791"
		note "rxe to ours, as received: $(pcap_stats "$RUN_DIR/to-ours.pcap")"
		# roce-rping prints no counters: its validated pings show the
		# engine recovered, the capture its CM's resends
		if [ "$tool" = rping ]; then
			note "no engine counters from roce-rping: its passing shows the recovery"
		else
			check_loss_counters "$role" "$perf_tool"
		fi
		uses_cm "$tool $extra" && check_cm_retries "$RUN_DIR/wire.pcap"
	fi
	if [ -n "$(v6_mode "$extra")" ]; then
		pcap_select "$RUN_DIR/wire.pcap" "$RUN_DIR/rxe-v6.pcap" "ether dst $NET_US_MAC and udp dst port 4791"
		check_v6 "$RUN_DIR/ours.pcap" "$RUN_DIR/rxe-v6.pcap" "$(v6_mode "$extra")" \
			"$(v6_our_gid "$extra")" "$(v6_rxe_gid "$extra" "$A")" \
			"$(is_ud "$tool" "$extra" && echo ud)" "$(uses_cc "$extra" && echo cc)"
	fi
	uses_cc "$extra" && check_ecn "$RUN_DIR/ours.pcap"
	[ "$(ce_mode "$extra")" = rx ] && check_ce_rx "$RUN_DIR/ours-port.pcap" "$RUN_DIR/ours.pcap"
	[ "$tool" = garbage ] && check_garbage "$RUN_DIR/garbage.json"
	[ "$tool" = rights ] && check_rights_wire "$role"
	[ -z "$mfile" ] || check_mmap "$mfile" "$(mmap_offset "$extra")" "$RUN_DIR/ours.log" \
		"$role" "$perf_tool"
	[ -z "$(stage_word "$extra" stage)" ] || check_stage "$role" "$perf_tool" "$mtu" "$extra"
	[ -z "$(retx_limit "$extra")" ] ||
		check_retx "$(retx_limit "$extra")" "$(vs_group "$extra")" "$role.m$mtu.s$size"
}

# peer_tool_for TOOL ROLE OURS_TOOL: the test rxe runs against ours
peer_tool_for() {
	case "$1:$2" in
	rights:client) echo write_bw ;;
	rights:server) echo read_bw ;;
	*) echo "$3" ;;
	esac
}

# check_exits ROLE RC_OURS RC_RXE: both sides ended well, and our tool
# without a sanitizer report
check_exits() {
	local role=$1 rc_ours=$2 rc_rxe=$3 peer_role=server
	[ "$role" = server ] && peer_role=client
	[ "${rc_ours:-1}" = 0 ] || fail "our $role exited with status ${rc_ours:-none} (ours.log)"
	check_sanitizer
	if [ -z "$rc_rxe" ]; then
		fail "rxe $peer_role not started"
	elif [ "$rc_rxe" != 0 ]; then
		fail "rxe $peer_role exited with status $rc_rxe (rxe.log)"
	fi
}

# check_sanitizer: with an ASan/UBSan build, name the report, not only
# the status
check_sanitizer() {
	local san
	san=$(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$RUN_DIR/ours.log" 2>/dev/null)
	[ -z "$san" ] || fail "sanitizer: $san (ours.log)"
}

run_rxe_pair() { # id tool mtu size iters extra: guest a serves, b is the client
	local tool=$2 mtu=$3 size=$4 iters=$5 extra=$6 rc_a=0 rc_b job_a=
	capture_start br0 wire
	# mpirun (b) starts rank 1 in a itself: no server job there
	if ! is_app "$tool" || app_has_server "$tool"; then
		[ "$(extra_word slow "$extra")" = server ] && RXE_SLOW_SERVER=1
		rxe_start "$A" "$(rxe_cmd "$tool" "$size" "$iters" "$mtu" "$extra")" server
		RXE_SLOW_SERVER=
		job_a=$RXE_JOB
		rxe_listening "$A" "$job_a" || fail "rxe server (a) did not start listening"
	fi
	rxe_start "$B" "$(rxe_cmd "$tool" "$size" "$iters" "$mtu" "$extra" "$A_IP")" client
	rxe_finish "$B" "$RXE_JOB" "$RUN_DIR/rxe-b.log"
	rc_b=$?
	if [ -n "$job_a" ]; then
		# qperf's server serves on: ended once its client is done
		if [ $rc_b != 0 ] || { is_app "$tool" && app_server_persists "$tool"; }; then
			# (a server whose client failed waits for nothing)
			vm_kill "$A" "$job_a"
			rxe_finish "$A" "$job_a" "$RUN_DIR/rxe-a.log" 10
			[ $rc_b = 0 ] || rc_a=1
		else
			rxe_finish "$A" "$job_a" "$RUN_DIR/rxe-a.log"
			rc_a=$?
		fi
	fi
	capture_stop "$extra"
	[ $rc_a = 0 ] || fail "rxe server (a) exited with status $rc_a"
	[ $rc_b = 0 ] || fail "rxe client (b) exited with status $rc_b"
	pcap_select "$RUN_DIR/wire.pcap" "$RUN_DIR/rxe.pcap" "udp dst port 4791"
	check_wire "$RUN_DIR/rxe.pcap" rxe "$mtu" "$size" 1
	uses_cm "$(rxe_cmd "$tool" "$size" "$iters" "$mtu" "$extra")" && check_cm "$RUN_DIR/rxe.pcap"
	is_app "$tool" && check_app_frames "$RUN_DIR/rxe.pcap" "$iters" "$tool"
	note "rxe on the wire: $(pcap_stats "$RUN_DIR/rxe.pcap")"
}

run_one() { # id peer tool role mtu size iters loss extra
	local id=$1 peer=$2 tool=$3 role=$4 mtu=$5 size=$6 iters=$7 loss=$8 extra=$9 t0=$SECONDS
	RUN_DIR=$out/runs/$id
	mkdir -p "$RUN_DIR"
	: >"$RUN_DIR/fail"
	: >"$RUN_DIR/notes"
	: >"$RUN_DIR/skip"
	: >"$RUN_DIR/cmd.txt"
	cp "$WORK/rxe-counters" "$RUN_DIR/rxe-counters.before" 2>/dev/null
	A_JOB=
	RXE_V6_MODE=$(v6_mode "$extra")
	if [ "$loss" != 0 ]; then
		# through the RDMA CM: our first MAD is lost too (check_cm_retries)
		net_loss "$loss" "$([ "$peer" = ours ] && uses_cm "$tool $extra" && echo "$NET_US_MAC")" ||
			fail "cannot install the loss rule"
	fi
	if [ -n "$(ce_mode "$extra")" ]; then
		net_ce on || fail "cannot install the CE rule"
	fi
	if [ "$peer" = rxe ]; then
		run_rxe_pair "$id" "$tool" "$mtu" "$size" "$iters" "$extra"
	else
		run_ours "$id" "$tool" "$role" "$mtu" "$size" "$iters" "$loss" "$extra"
	fi
	if [ "$loss" != 0 ]; then
		local dropped
		dropped=$(net_loss_count)
		net_loss 0
		if [ "${dropped:-0}" -gt 0 ]; then
			note "the bridge dropped $dropped RoCE frames ($loss % loss)"
		else
			fail "the loss rule dropped nothing: the run did not test loss"
		fi
	fi
	if [ -n "$(ce_mode "$extra")" ]; then
		local marked
		marked=$(net_ce_count)
		net_ce off
		if [ "${marked:-0}" -gt 0 ]; then
			note "the bridge set CE on $marked RoCE frames to us"
		else
			fail "the CE rule marked nothing: the run did not test CE"
		fi
	fi
	# rxe's side of the story: its port counters that moved in this run
	if [ -n "${A_JOB:-}" ] && [ -s "$A/ctl/jobs/$A_JOB.hw" ]; then
		cp "$A/ctl/jobs/$A_JOB.hw" "$RUN_DIR/rxe-counters.after"
	else
		rxe_hw_counters "$A" >"$RUN_DIR/rxe-counters.after" 2>&1
	fi
	cp "$RUN_DIR/rxe-counters.after" "$WORK/rxe-counters"
	awk 'NR == FNR { b[$1] = $2; next } $2 != b[$1] { printf "%s+%d ", $1, $2 - b[$1] }' \
		"$RUN_DIR/rxe-counters.before" "$RUN_DIR/rxe-counters.after" >"$RUN_DIR/rxe-counters.diff"
	if [ "$loss" != 0 ] || [ "$tool" = garbage ]; then
		note "rxe counters: $(cat "$RUN_DIR/rxe-counters.diff")"
	elif grep -qE '(completer_retry_err|retry_exceeded_err|rcvd_seq_err|out_of_seq_request|duplicate_request|rnr|send_err)' \
		"$RUN_DIR/rxe-counters.diff"; then
		# on a clean wire rxe should never have to recover: a timeout
		# waiting for our ACK, or our retransmission, shows up here
		# (a descheduled TCG guest can cause one too, so: a note)
		note "rxe recovered on a clean wire: $(cat "$RUN_DIR/rxe-counters.diff")"
		echo "$id" >>"$WORK/clean-recoveries"
	fi
	local secs=$((SECONDS - t0)) status=PASS
	[ -s "$RUN_DIR/skip" ] && status=SKIP
	[ -s "$RUN_DIR/fail" ] && status=FAIL
	# a known failure (xfail:PATTERN, lib/apps.sh): XFAIL when it failed
	# for that reason; its reasons are then notes
	status=$(xfail_verdict "$extra" "$status")
	if [ "$status" = XFAIL ]; then
		sed 's/^/why: /' "$RUN_DIR/fail" >>"$RUN_DIR/notes"
		: >"$RUN_DIR/fail"
	fi
	echo "$status" >"$RUN_DIR/result"
	printf '%s\t%s\t%s\t%s\n' "$id" "$status" "$secs" "$(paste -sd';' "$RUN_DIR/fail")" >>"$out/results.tsv"
	{
		printf '%-4s %-34s %3ds\n' "$status" "$id" "$secs"
		sed 's/^/       FAIL: /' "$RUN_DIR/fail"
		sed 's/^/       SKIP: /' "$RUN_DIR/skip"
		sed 's/^/       /' "$RUN_DIR/notes"
	} | tee -a "$out/summary.txt"
}
