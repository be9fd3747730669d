#!/usr/bin/env bash
# The RDMA applications of Debian's that reach libibverbs through their
# own layers, each side under roce-run in a namespace of a veth pair made
# here: UCX's ucx_perftest over its RC and UD verbs transports (uct's
# active messages; UCP's tag matching over both, as OpenMPI's pml ucx
# uses them) and libfabric's fi_pingpong over the verbs provider's MSG
# endpoints (every byte checked, -c); qperf's RC tests through the RDMA
# CM, ours as client and server; OpenMPI's mpirun over UCX (pml ucx,
# the verbs transports forced) running tests/interop/mpi_pingpong.c, one
# rank in each namespace (its launch agent starts orted in the other one
# under roce-run). Each must finish its iterations;
# the capture of the run must hold RoCE frames (the programs fall back
# to TCP or shared memory silently). Skipped per program when its Debian
# package is not installed (ucx-utils, libfabric-bin, openmpi-bin and
# libopenmpi-dev).
# Usage: apps_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
. "$(dirname "$0")/lib/pair_run.sh"
B=${1:?build dir}
S=${2:?source dir}
NA=apv-a-$$ NB=apv-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "apps_veth: SKIP (needs root and network namespaces)"; exit 0
fi
# the programs keep their objects to the exit: no LeakSanitizer in them
RR_LEAKS=0
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "pa$$" "pb$$" 10.234.12.1/24 10.234.12.2/24 || { echo "FAIL: veth setup"; exit 1; }
RUN=(env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev)

# capture_start / capture_frames: RoCE frames (not QP1's) on pb$$ between
# them (--immediate-mode: a frame is written as it comes, none is left in
# a ring block the kill would drop; a 64 MiB buffer). A loaded machine
# may still starve tcpdump of frames: a run must show some (10), which a
# program that fell back to TCP or shared memory would not; that every
# message went over RoCE is the forced transport's doing (uct's -x,
# UCX_TLS, -p verbs), and each program checks its own data
capture_start() {
	rm -f "$TMP/cap.pcap"
	ip netns exec "$NB" timeout -k 5 60 tcpdump -i "pb$$" -B 65536 -w "$TMP/cap.pcap" -U --immediate-mode udp port 4791 \
		>/dev/null 2>&1 &
	cap_pid=$!
	pids+=("$cap_pid")
	# capturing once the file has its header (at most 5 s)
	for _ in $(seq 50); do
		[ "$(stat -c %s "$TMP/cap.pcap" 2>/dev/null || echo 0)" -ge 24 ] && break
		sleep 0.1
	done
	sleep 0.2
}
capture_frames() {
	sleep 0.3
	kill "$cap_pid" 2>/dev/null; wait "$cap_pid" 2>/dev/null
	tshark -r "$TMP/cap.pcap" -Y 'infiniband && infiniband.bth.destqp != 1' 2>/dev/null | wc -l
}

# app NAME WANT_REGEX SERVER_ARGS... :: CLIENT_ARGS...: both under
# roce-run (the client gets the server's address last), both exit 0,
# the client prints WANT_REGEX, and RoCE frames crossed the veth
app() {
	local name=$1 want=$2 s=() frames why=
	shift 2
	while [ "$1" != :: ]; do s+=("$1"); shift; done
	shift
	capture_start
	WAIT=1.5 pair "${RUN[@]}" "pa$$" -- "${s[@]}" :: "${RUN[@]}" "pb$$" -- "$@" 10.234.12.1
	frames=$(capture_frames)
	[ $crc = 0 ] && [ $src = 0 ] || why=" exit $crc/$src"
	grep -qE -- "$want" "$TMP/cli" || why="$why no '$want'"
	[ "$frames" -ge 10 ] || why="$why only $frames RoCE frames"
	result "$name ($frames RoCE frames)" $why
}

if command -v ucx_perftest >/dev/null; then
	for tl in rc_verbs ud_verbs; do
		app "ucx_perftest am_lat over $tl" "^Final: +200 " \
			ucx_perftest :: ucx_perftest -t am_lat -D bcopy -x $tl -d roce0:1 -n 200
	done
	app "ucx_perftest tag_lat (UCP over rc_verbs and ud_verbs)" "^Final: +200 " \
		env UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=roce0:1 ucx_perftest :: \
		env UCX_TLS=rc_verbs,ud_verbs,self UCX_NET_DEVICES=roce0:1 ucx_perftest \
			-t tag_lat -n 200
else
	echo "skip ucx_perftest (no ucx-utils)"
fi
if command -v fi_pingpong >/dev/null; then
	app "fi_pingpong -p verbs -e msg -c" "^4k +100 +=100 " \
		fi_pingpong -p verbs -e msg -c -I 100 -S 4096 :: \
		fi_pingpong -p verbs -e msg -c -I 100 -S 4096
else
	echo "skip fi_pingpong (no libfabric-bin)"
fi

# qperf, ours as its client too (against rxe's server the matrix cannot:
# Debian's qperf 0.4.11 sends the server's port before rdma_listen,
# upstream's 118a571 "Fix rdmacm race", and rxe's slow server loses it)
if command -v qperf >/dev/null; then
	for t in rc_lat rc_rdma_read_bw; do
		capture_start
		ip netns exec "$NA" timeout -k 5 30 "${RUN[@]}" "pa$$" -- qperf >"$TMP/srv" 2>&1 &
		qs=$!
		pids+=("$qs")
		sleep 1
		# once more if the client lost qperf's own race (its server sends
		# the port before rdma_listen): REJ, "unexpected event"
		for try in 1 2; do
			ip netns exec "$NB" timeout -k 5 30 "${RUN[@]}" "pb$$" -- qperf 10.234.12.1 -cm1 \
				-t 1 $t >"$TMP/cli" 2>&1
			crc=$?
			[ $crc != 0 ] && [ $try = 1 ] && grep -q "RDMA CM" "$TMP/cli" || break
			echo "     (qperf $t: its race lost, once more: $(grep -m1 "RDMA CM" "$TMP/cli"))"
			sleep 0.5
		done
		kill "$qs" 2>/dev/null; wait "$qs" 2>/dev/null
		frames=$(capture_frames)
		why=
		[ $crc = 0 ] || why=" exit $crc"
		grep -qE "^ +(latency|bw) += +[0-9.]+ (ns|us|ms|sec|[KMG]B/sec)$" "$TMP/cli" || why="$why no figure"
		[ "$frames" -ge 10 ] || why="$why only $frames RoCE frames"
		result "qperf -cm1 $t, ours as client and server ($frames RoCE frames)" $why
	done
else
	echo "skip qperf (not installed)"
fi

# OpenMPI: mpirun (under roce-run in NA) starts rank 0 there and, through
# its launch agent, orted (under roce-run in NB) for rank 1; UCX's verbs
# transports forced (Debian's openmpi-mca-params.conf turns pml ucx off,
# and opal_common_ucx_devices wants mlx*); --bind-to none: mpirun and
# orted each bind their rank to core 0 of what they take for a node of
# their own, and both ranks on one core took 1 ms a round trip, not 54 us
if command -v mpirun >/dev/null && command -v mpicc >/dev/null &&
   mpicc -O2 -o "$TMP/mpi_pingpong" "$S/tests/interop/mpi_pingpong.c" 2>"$TMP/mpicc.err"; then
	# its rsh agent: ssh into NB, nothing more (mpirun's LD_PRELOAD
	# left behind: a sanitized roce-run has its own runtime); orted under
	# roce-run there through OpenMPI's own --launch-agent, as
	# docs/verbs.md tells a user to run it across machines
	cat >"$TMP/rsh" <<RSH
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
shift
exec ip netns exec $NB env -u LD_PRELOAD sh -c "\$*"
RSH
	chmod +x "$TMP/rsh"
	chmod o+rx "$TMP"
	capture_start
	mca=(OMPI_MCA_pml=ucx OMPI_MCA_opal_common_ucx_devices=any UCX_TLS=rc_verbs,ud_verbs,self
	     UCX_NET_DEVICES=roce0:1)
	x=(); for w in "${mca[@]}"; do x+=(-x "${w%%=*}"); done
	ip netns exec "$NA" timeout -k 5 60 env "${mca[@]}" ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" \
		--netdev "pa$$" -- mpirun --allow-run-as-root --bind-to none -n 2 \
		--host 10.234.12.1:1,10.234.12.2:1 \
		--mca plm_rsh_agent "$TMP/rsh" --mca oob_tcp_if_include 10.234.12.0/24 "${x[@]}" \
		--launch-agent "${RR_ENV[*]+env ${RR_ENV[*]} }$RR --netdev pb$$ -- orted" \
		"$TMP/mpi_pingpong" -s 4096 -n 100 >"$TMP/cli" 2>&1
	crc=$?
	frames=$(capture_frames)
	: >"$TMP/srv"
	why=
	[ $crc = 0 ] || why=" exit $crc"
	grep -q "^mpi_pingpong: 100 round trips of 4096 bytes, .* every byte checked" "$TMP/cli" ||
		why="$why no result line"
	[ "$frames" -ge 10 ] || why="$why only $frames RoCE frames"
	result "OpenMPI mpi_pingpong over UCX, a rank a namespace ($frames RoCE frames)" $why
else
	echo "skip OpenMPI (no mpirun or mpicc: openmpi-bin, libopenmpi-dev)"
fi

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
