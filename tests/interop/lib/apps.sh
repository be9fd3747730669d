# shellcheck shell=bash
# The RDMA applications of the matrix, sourced by tests/interop/run: qperf,
# UCX's ucx_perftest, libfabric's fi_pingpong and an OpenMPI ping-pong
# (tests/interop/mpi_pingpong.c) over UCX, and the rsockets programs:
# librdmacm's rstream, and iperf3, an ordinary TCP program, over rsockets
# through Debian's preload library (librspreload). Their command lines (for rxe in
# a guest, and for our side: Debian's program under roce-run, run:debian)
# and the check that the run really went over RoCE.
#
# Flags of the matrix's extra column go to the client only (the servers of
# qperf and ucx_perftest take the test from the client; fi_pingpong's
# server gets the same ones, and rstream's: they must agree on them); a
# word env:NAME=VALUE sets NAME in both sides' environment (mpirun
# forwards it to its ranks with -x). UCX and OpenMPI fall back to TCP or shared memory without a
# word: the lines force the verbs transports (UCX_TLS, uct's -x, pml ucx),
# and check_app_frames fails a run that did not put its messages on RoCE.

APP_TOOLS="qperf ucx_perftest fi_pingpong mpi_pingpong rstream iperf3_rs"
# Debian's rsockets preload library: socket(2) and its kin to rsockets
RSPRELOAD=/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so

# is_app TOOL: is TOOL one of the applications (not perftest or ibv_*)?
is_app() { case " $APP_TOOLS " in *" $1 "*) return 0 ;; esac; return 1; }

# app_has_server TOOL: does the peer run a server job? mpirun starts
# both ranks itself (rank 1 through its launch agent, guest-rsh): the
# "server" is the orted that agent starts, in a guest or, for ours, in
# our namespace (host-jobs)
app_has_server() { [ "$1" != mpi_pingpong ]; }

# MPI_DIR: where the harness builds mpi_pingpong for our side, beside the
# launch agent (mpirun and orted find both in $PATH by name, as in the
# guests' /usr/bin)
MPI_DIR=

# mpi_prepare DIR: build tests/interop/mpi_pingpong.c for our side into
# DIR with Debian's mpicc (libopenmpi-dev); MPI_DIR set on success
mpi_prepare() {
	mkdir -p "$1" || return 1
	command -v mpicc >/dev/null || { echo "no mpicc (libopenmpi-dev)" >"$1/err"; return 1; }
	mpicc -O2 -Wall -Wextra -o "$1/mpi_pingpong" "$HERE/mpi_pingpong.c" >"$1/err" 2>&1 || return 1
	# the launch agent by the guests' name: mpirun hands its
	# plm_rsh_agent on to every orted, which checks it can find it
	install -m 755 "$HERE/guest-rsh" "$1/rni-rsh" || return 1
	MPI_DIR=$(cd "$1" && pwd)       # (PATH wants it absolute)
}

# app_server_persists TOOL: a server that never ends by itself (qperf's
# serves clients until killed): the harness ends it once the client ended
app_server_persists() { [ "$1" = qperf ]; }

# app_env EXTRA: NAME=VALUE of each env: word, on one line
app_env() { extra_word env "$1" | paste -sd' '; }

# xfail_pattern EXTRA: PATTERN of an xfail:PATTERN word: the run is known
# to fail, between two rxe guests as well, and a log of the run must
# show PATTERN (grep -E; a dot for each space) as its reason
xfail_pattern() { extra_word xfail "$1"; }

# xfail_verdict EXTRA STATUS: the status of a run with an xfail: word
# (none: STATUS itself). FAIL with PATTERN in a log: XFAIL, the log's
# line a note; FAIL without it: still FAIL (another failure); PASS: FAIL,
# the word is stale
# A word race:PATTERN instead marks a known race the run may lose (the
# peer's program listens late, and a fast client is refused): PASS stays
# PASS, FAIL with PATTERN in a log or in the run's reasons (a program
# that says nothing but its exit status) is XFAIL, any other failure FAIL.
xfail_verdict() {
	local pat line race
	pat=$(xfail_pattern "$1")
	race=$(extra_word race "$1")
	if [ -z "$pat" ] && [ -n "$race" ] && [ "$2" = FAIL ]; then
		line=$(cat "$RUN_DIR"/*.log "$RUN_DIR/fail" 2>/dev/null | grep -m1 -E -- "$race")
		if [ -n "$line" ]; then
			note "lost the known race (race:$race): $line"
			echo XFAIL
			return
		fi
	fi
	if [ -z "$pat" ]; then echo "$2"; return; fi
	if [ "$2" = PASS ]; then
		fail "passed, but the matrix expects it to fail (xfail:$pat): drop the word"
		echo FAIL
		return
	fi
	line=$(cat "$RUN_DIR"/*.log 2>/dev/null | grep -m1 -E -- "$pat")
	if [ -z "$line" ]; then
		fail "expected to fail with /$pat/, which no log of the run shows"
		echo FAIL
		return
	fi
	note "failed as expected (xfail): $line"
	echo XFAIL
}

# app_cmd WHO TOOL SIZE ITERS EXTRA [SERVER_IP] [PRE]: the command line
# of one side (WHO rxe: in the guest, its device $RNI_RXE; ours: the one
# device of the drop-in, roce0 or the name of an rr:--ibdev=NAME word),
# a server without SERVER_IP; PRE goes
# between the environment and the program (roce-run and its flags). @DEV@
# in a flag or env: word is the side's device. OOB_PORT is every tool's
# out-of-band TCP port, so the guest's server job sees it listen.
app_cmd() {
	local who=$1 tool=$2 size=$3 iters=$4 extra server=${6:-} pre=${7:-} dev='$RNI_RXE' env
	if [ "$who" = ours ]; then
		dev=$(extra_word rr "$5" | sed -n 's/^--ibdev=//p' | tail -1)
		dev=${dev:-roce0}
	fi
	extra=$(extra_for "$who" "$5")
	[ -n "$server" ] || [ "$tool" = fi_pingpong ] || [ "$tool" = rstream ] || extra=
	env=$(app_env "$5")
	env=${env//@DEV@/$dev}
	if [ "$who" = ours ] && [ "$tool" = mpi_pingpong ]; then
		# our mpirun: rank 0 here, rank 1's orted in the guest through
		# guest-rsh on the guests' share; our orted (a guest's mpirun
		# asked for it): host-jobs runs it here under roce-run
		if [ -n "$server" ]; then
			env+=" RNI_SHARE=$VM_SHARE PATH=$MPI_DIR:$PATH"
			echo "env $env $pre $(app_prog "$tool" "$size" "$iters" "${extra//@DEV@/$dev}" "$server" "$env" "$NET_US_IP")"
		else
			echo "$HERE/host-jobs $VM_SHARE/$NET_US_IP $RUN_TIMEOUT env $env RNI_SHARE=$VM_SHARE PATH=$MPI_DIR:$PATH $pre"
		fi
		return
	fi
	echo "${env:+env $env }${pre:+$pre }$(app_prog "$tool" "$size" "$iters" "${extra//@DEV@/$dev}" "$server" "$env")"
}

# app_prog TOOL SIZE ITERS FLAGS SERVER_IP ENV [SELF_IP]: the program and
# its flags (SELF_IP: the side's own address, a guest's by default)
app_prog() {
	local tool=$1 size=$2 iters=$3 extra=$4 server=$5 env=$6 self=${7:-'$RNI_IP'} w
	case "$tool" in
	qperf)
		# qperf's server is one process for every test; -lp its port.
		# A test runs for its time (-t, 2 s by default): most of them
		# ignore -n, and rc_lat under -n never ended here
		if [ -n "$server" ]; then
			echo "qperf -lp $OOB_PORT -m $size $server $extra"
		else
			echo "qperf -lp $OOB_PORT"
		fi ;;
	ucx_perftest)
		# uct tests (-x TL -d DEV) name the transport; the server
		# takes them from the client
		if [ -n "$server" ]; then
			echo "ucx_perftest -p $OOB_PORT -s $size -n $iters $extra $server"
		else
			echo "ucx_perftest -p $OOB_PORT"
		fi ;;
	fi_pingpong)
		if [ -n "$server" ]; then
			echo "fi_pingpong -P $OOB_PORT -S $size -I $iters $extra $server"
		else
			echo "fi_pingpong -B $OOB_PORT -S $size -I $iters $extra"
		fi ;;
	rstream)
		# both sides the same test: SIZE bytes ITERS times, each byte
		# checked (-T v); the server on every address
		echo "rstream -p $OOB_PORT -S $size -C $iters -T v${server:+ -s $server} $extra" ;;
	iperf3_rs)
		# iperf3's control and data connections are rsockets through
		# the preload library; ITERS writes of SIZE bytes; the server
		# serves one client (-1)
		if [ -n "$server" ]; then
			echo "env LD_PRELOAD=$RSPRELOAD iperf3 -p $OOB_PORT -c $server -l $size -n $((size * iters)) $extra"
		else
			echo "env LD_PRELOAD=$RSPRELOAD iperf3 -p $OOB_PORT -s -1"
		fi ;;
	mpi_pingpong)
		# rank 0 here, rank 1 on SERVER_IP through guest-rsh; every
		# env: word forwarded to both ranks; --bind-to none: each
		# mpirun and orted binds its rank to core 0 of what it takes
		# for a node of its own (our namespace and the host are one)
		local x=
		for w in $env; do
			case "$w" in UCX_*|OMPI_*) x+=" -x ${w%%=*}" ;; esac
		done
		echo "mpirun --allow-run-as-root --bind-to none -n 2 --host $self:1,$server:1" \
			"--mca plm_rsh_agent rni-rsh --mca oob_tcp_if_include $NET_SUBNET.0/24$x" \
			"$extra mpi_pingpong -s $size -n $iters" ;;
	esac
}

# check_app_frames PCAP ITERS TOOL: the run's messages went over RoCE: at
# least ITERS RoCE frames (UDP 4791, dissected as InfiniBand by tshark) to
# other QPs than QP1 (the CM's MADs alone do not count). A program that
# fell back to TCP or shared memory sends none.
check_app_frames() {
	local pcap=$1 iters=$2 tool=$3 n tcp
	n=$(tshark -r "$pcap" $(tshark_no_ulp) -Y 'infiniband && infiniband.bth.destqp != 1' 2>/dev/null | wc -l)
	tcp=$(tcpdump -r "$RUN_DIR/wire.pcap" -nn "tcp and not port $OOB_PORT" 2>/dev/null | wc -l)
	if [ "$n" -lt "$iters" ]; then
		fail "$tool: $n RoCE frames outside QP1 for $iters messages: the run did not go over RoCE ($tcp TCP segments besides port $OOB_PORT)"
	else
		note "$tool: $n RoCE frames outside QP1 for $iters messages ($tcp TCP segments besides port $OOB_PORT)"
	fi
}
