# shellcheck shell=bash
# The two sides of a run: command lines for rxe (in the guest) and for our
# tools (in $NET_US), sourced by tests/interop/run.
#
# Both sides get the same -s/-n/-m and extra flags, as one would type them
# on two hosts; the client names the server's IPv4 address last. An extra
# word ours:FLAG goes to our tool only, as FLAG (ours:--link=xdp: our side
# on the AF_XDP port), with @RUN_DIR@ in it made the run's directory
# (ours:--mmap=@RUN_DIR@/ours.mmap: our buffer in a file of the run, made
# by mmap_prepare).

OOB_PORT=18515  # ibv_rc_pingpong's and perftest's default TCP port

# extra_for ours|rxe EXTRA: the extra flags of that side
extra_for() {
	local who=$1 w out=() words
	read -ra words <<<"$2"
	for w in ${words[@]+"${words[@]}"}; do
		case "$w" in
		ours:*) if [ "$who" = ours ]; then w=${w#ours:}; out+=("${w//@RUN_DIR@/${RUN_DIR:-}}"); fi ;;
		*) out+=("$w") ;;
		esac
	done
	printf "%s\n" "${out[*]}"     # echo would take a lone -e for its own
}

# uses_xdp EXTRA: does our side run on the AF_XDP port?
uses_xdp() {
	case " $(extra_for ours "$1") " in
	*" --link=xdp "*|*" --link xdp "*) return 0 ;;
	esac
	return 1
}

# mmap_file EXTRA / mmap_offset EXTRA: our side's --mmap file (none: empty)
# and --mmap-offset (0)
mmap_file() {
	local w
	for w in $(extra_for ours "$1"); do
		case "$w" in --mmap=*) echo "${w#--mmap=}" ;; esac
	done
}
mmap_offset() {
	local w off=0
	for w in $(extra_for ours "$1"); do
		case "$w" in --mmap-offset=*) off=${w#--mmap-offset=} ;; esac
	done
	echo "$off"
}

# mmap_prepare FILE: a file of MMAP_FILE_SIZE zeros (sparse) for --mmap
MMAP_FILE_SIZE=$((16 << 20))
mmap_prepare() {
	rm -f "$1" && truncate -s "$MMAP_FILE_SIZE" "$1"
}

# is_bidir EXTRA: do both sides send (perftest's -b, given to both)?
is_bidir() {
	case " $(extra_for rxe "$1") " in
	*" -b "*|*" --bidirectional "*) return 0 ;;
	esac
	return 1
}

# rxe_cmd TOOL SIZE ITERS MTU EXTRA [SERVER_IP]: the guest's command line
# ($RNI_RXE and $RNI_GID expand in the guest: the RoCE v2 IPv4 GID index)
rxe_cmd() {
	local tool=$1 size=$2 iters=$3 mtu=$4 extra server=${6:-}
	extra=$(extra_for rxe "$5")
	case "$tool" in
	rc_pingpong|srq_pingpong)
		echo "ibv_$tool -d \$RNI_RXE -g \$RNI_GID -s $size -n $iters -m $mtu $extra $server" ;;
	*)
		echo "ib_$tool -d \$RNI_RXE -x \$RNI_GID -F -s $size -n $iters -m $mtu $extra $server" ;;
	esac
}

# ours_tool TOOL: the path of our program for TOOL
ours_tool() {
	case "$1" in
	rc_pingpong) echo "$BUILD/tools/roce-pingpong" ;;
	srq_pingpong) echo "$BUILD/tools/roce-srq-pingpong" ;;
	*) echo "$BUILD/tools/roce-perf" ;;
	esac
}

# ours_cmd TOOL SIZE ITERS MTU EXTRA [SERVER_IP]: our command line, run in
# $NET_US on roce0 with our address
ours_cmd() {
	local tool=$1 size=$2 iters=$3 mtu=$4 extra server=${6:-} bin
	extra=$(extra_for ours "$5")
	bin=$(ours_tool "$tool")
	case "$tool" in
	rc_pingpong|srq_pingpong)
		echo "$bin --netdev $NET_US_IF --ip $NET_US_IP $(ours_counter_flags "$bin") -s $size -n $iters -m $mtu $extra $server" ;;
	*)
		echo "$bin $tool --netdev $NET_US_IF --ip $NET_US_IP $(ours_counter_flags "$bin") -F -s $size -n $iters -m $mtu $extra $server" ;;
	esac
}

# ours_counter_flags BIN: the option that makes BIN print the engine's
# counters when it ends, as its --help offers it (none if it has none: the
# checks that need counters then fail and say so).
ours_counter_flags() {
	local help
	help=$("$1" --help 2>&1) || true
	case "$help" in
	*--counters*) echo "--counters" ;;
	*--all-counters*) echo "--all-counters" ;;
	esac
}

# sends_data TOOL ROLE [EXTRA]: does that side send payload-carrying
# packets? (for the path-MTU check: those packets must be MTU-sized) With
# -b in EXTRA every side of a bandwidth test does.
sends_data() {
	case " ${3:-} " in
	*" -b "*|*" --bidirectional "*)
		case "$1" in write_bw|read_bw|send_bw) return 0 ;; esac ;;
	esac
	case "$1:$2" in
	rc_pingpong:*|srq_pingpong:*|write_lat:*|send_lat:*) return 0 ;;
	write_bw:client|send_bw:client|read_bw:server|read_lat:server) return 0 ;;
	esac
	return 1
}

# The end of every rxe job: rxe's port counters into $RNI_JOB.hw, read
# in the guest as the tool ends (a separate job would cost a round trip)
RXE_JOB_END='rc=$?
for f in /sys/class/infiniband/$RNI_RXE/ports/1/hw_counters/*; do
	echo "${f##*/} $(cat "$f")"
done >$RNI_JOB.hw.tmp && mv $RNI_JOB.hw.tmp $RNI_JOB.hw
exit $rc'

# rxe_client_job CMD SECONDS: a guest job running a client
rxe_client_job() {
	printf 'timeout %s %s\n%s\n' "$2" "$1" "$RXE_JOB_END"
}

# rxe_server_job CMD SECONDS: a guest job running a server; it touches
# $RNI_JOB.listening once the out-of-band port listens (or the server ended)
rxe_server_job() {
	cat <<EOF
timeout $2 $1 &
p=\$!
i=0
while [ \$i -lt 150 ] && kill -0 \$p 2>/dev/null; do
	netstat -ltn 2>/dev/null | grep -q ':$OOB_PORT ' && break
	sleep 0.1
	i=\$((i + 1))
done
touch \$RNI_JOB.listening
wait \$p
$RXE_JOB_END
EOF
}

# rxe_hw_counters DIR: "name value" for rxe's port counters in the guest
rxe_hw_counters() {
	vm_run "$1" 20 'cd /sys/class/infiniband/$RNI_RXE/ports/1/hw_counters && for f in *; do echo "$f $(cat $f)"; done'
}
