# shellcheck shell=bash
# The two sides of a run: command lines for rxe (in the guest) and for our
# tools (in $NET_US), sourced by tests/interop/run.
#
# Both sides get the same -s/-n/-m and extra flags, as one would type them
# on two hosts; the client names the server's IPv4 address last. An extra
# word ours:FLAG goes to our tool only, as FLAG (ours:--link=xdp: our side
# on the AF_XDP port), with @RUN_DIR@ in it made the run's directory
# (ours:--mmap=@RUN_DIR@/ours.mmap: our buffer in a file of the run, made
# by mmap_prepare). A word v6:ll or v6:global makes the run RoCE v2 over
# IPv6 (v6_mode); it goes to neither side as a flag, nor does ce:rx
# (ce_mode: the bridge sets CE on the frames to us). A word run:debian
# makes our side Debian's own program (ibv_TOOL, ib_TOOL) under roce-run,
# on the drop-in libibverbs (ours_debian_cmd); it is no flag either.

OOB_PORT=18515  # ibv_rc_pingpong's and perftest's default TCP port

# RoCE v2 over IPv6: the wire's prefix; a side's global address ends in the
# last octet of its IPv4 address (guest a 10.91.0.11: fd91::11)
NET_V6_PREFIX=fd91
NET_US_IP6=$NET_V6_PREFIX::2

# extra_for ours|rxe EXTRA: the extra flags of that side
extra_for() {
	local who=$1 w out=() words
	read -ra words <<<"$2"
	for w in ${words[@]+"${words[@]}"}; do
		case "$w" in
		ours:*) if [ "$who" = ours ]; then w=${w#ours:}; out+=("${w//@RUN_DIR@/${RUN_DIR:-}}"); fi ;;
		v6:*|ce:*|run:*|retx:*|vs:*|cap:*|rr:*|env:*|xfail:*|race:*|slow:*) ;;
		*) out+=("$w") ;;
		esac
	done
	printf "%s\n" "${out[*]}"     # echo would take a lone -e for its own
}

# v6_mode EXTRA: the GID a RoCE v2 over IPv6 run uses on both sides: ll
# (the link-local GID made from the MAC, index 0 on rxe and on ours) or
# global (fd91::N/64, which each side gets for the run); empty for IPv4
v6_mode() { extra_word v6 "$1"; }

# extra_word KIND EXTRA: VALUE of each KIND:VALUE word of EXTRA (the words
# for the harness, not for a side: v6:, ce:, retx:, vs:, cap:)
extra_word() {
	local w
	for w in $2; do
		case "$w" in "$1":*) echo "${w#"$1":}" ;; esac
	done
}

# v6_our_gid EXTRA / v6_rxe_gid EXTRA GUEST: the GIDs of an IPv6 run as
# tshark writes them: ours (link-local from NET_US_MAC, or NET_US_IP6), the
# guest's (link-local from its MAC, or fd91:: and its IPv4's last octet)
v6_our_gid() {
	case "$(v6_mode "$1")" in
	ll) eui64_ll "$NET_US_MAC" ;;
	global) echo "$NET_US_IP6" ;;
	esac
}
v6_rxe_gid() {
	case "$(v6_mode "$1")" in
	ll) eui64_ll "$(vm_info "$2" mac)" ;;
	global) echo "$NET_V6_PREFIX::$(vm_info "$2" ip | sed 's|/.*||; s|.*\.||')" ;;
	esac
}
# eui64_ll MAC: fe80:: and the modified EUI-64 of MAC, in the shortest form
eui64_ll() {
	python3 - "$1" <<'PY'
import ipaddress, sys
m = [int(x, 16) for x in sys.argv[1].split(':')]
b = bytes([0xfe, 0x80, 0, 0, 0, 0, 0, 0, m[0] ^ 2, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]])
print(ipaddress.IPv6Address(b))
PY
}

# retx_limit EXTRA: N of a retx:N word, the most retransmitted frames a
# run of ours may send, in per cent of its frames (check_retx); vs_group
# EXTRA: NAME of a vs:NAME word, the group of the same matrix whose run
# (same role, MTU and size) our goodput must not fall below. Neither goes
# to a side as a flag.
retx_limit() { extra_word retx "$1"; }
vs_group() { extra_word vs "$1"; }

# ce_mode EXTRA: where the bridge sets ECN CE during the run: rx (on the
# RoCE frames to our port, rxe's data to us: our notification point's
# input); empty for none. It goes to neither side as a flag.
ce_mode() { extra_word ce "$1"; }

# uses_cc EXTRA: does our side run with congestion control (ours:--cc)?
uses_cc() {
	case " $(extra_for ours "$1") " in
	*" --cc "*) return 0 ;;
	esac
	return 1
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

# is_uc TOOL EXTRA: does the run use UC QPs (ibv_uc_pingpong, perftest's
# -c UC)?
is_uc() {
	[ "$1" = uc_pingpong ] && return 0
	case " $(extra_for rxe "$2") " in
	*" -c UC "*|*" --connection=UC "*) return 0 ;;
	esac
	return 1
}

# is_ud TOOL EXTRA: does the run use UD QPs (ibv_ud_pingpong, perftest's
# -c UD)?
is_ud() {
	[ "$1" = ud_pingpong ] && return 0
	case " $(extra_for rxe "$2") " in
	*" -c UD "*|*" --connection=UD "*) return 0 ;;
	esac
	return 1
}

# is_bidir EXTRA: do both sides send (perftest's -b, given to both)?
is_bidir() {
	case " $(extra_for rxe "$1") " in
	*" -b "*|*" --bidirectional "*) return 0 ;;
	esac
	return 1
}

# rxe_cmd TOOL SIZE ITERS MTU EXTRA [SERVER_IP]: the guest's command line
# ($RNI_RXE and $RNI_GID expand in the guest: the RoCE v2 IPv4 GID index;
# over IPv6, $RNI_GID6, which the job's prelude finds: rxe_v6_prelude)
rxe_cmd() {
	local tool=$1 size=$2 iters=$3 mtu=$4 extra server=${6:-} gid='$RNI_GID'
	extra=$(extra_for rxe "$5")
	[ -n "$(v6_mode "$5")" ] && gid='$RNI_GID6'
	# qperf, ucx_perftest, fi_pingpong, mpi_pingpong: lib/apps.sh
	if is_app "$tool"; then
		app_cmd rxe "$tool" "$size" "$iters" "$5" "$server"
		return
	fi
	case "$tool" in
	rc_pingpong|uc_pingpong|srq_pingpong)
		echo "ibv_$tool -d \$RNI_RXE -g $gid -s $size -n $iters -m $mtu $extra $server" ;;
	ud_pingpong)    # no -m: a datagram's limit is the port's MTU
		echo "ibv_$tool -d \$RNI_RXE -g $gid -s $size -n $iters $extra $server" ;;
	rping)
		# rping has no device, GID or MTU flag: the CM picks them from
		# the address; the server listens on every address
		rping_cmd "$server" 0.0.0.0 "$size" "$iters" "$extra" ;;
	ucmatose)
		# the same: the server binds the wildcard address
		ucmatose_cmd "$server" "$size" "$iters" "$extra" ;;
	*)
		echo "ib_$tool -d \$RNI_RXE -x $gid -F -s $size -n $iters -m $mtu $extra $server" ;;
	esac
}

# rping_cmd SERVER_IP LISTEN_IP SIZE ITERS EXTRA: librdmacm's rping, the
# client (to SERVER_IP) or, without one, the server (on LISTEN_IP)
rping_cmd() {
	if [ -n "$1" ]; then
		echo "rping -c -a $1 -S $3 -C $4 $5"
	else
		echo "rping -s -a $2 -S $3 -C $4 $5"
	fi
}

# ucmatose_cmd SERVER_IP SIZE ITERS EXTRA: librdmacm's ucmatose, the
# client (-s: the server's address) or the server; the message count and
# size as the matrix's (its connections with -c in EXTRA)
ucmatose_cmd() {
	echo "ucmatose${1:+ -s $1} -C $3 -S $2 $4"
}

# uses_cm CMD: does the command connect through the RDMA CM (rping,
# ucmatose, perftest's -R, rsockets) rather than a TCP exchange?
uses_cm() {
	case " $1 " in
	" rping "*|" ucmatose "*|*" -R "*|*" --rdma_cm "*) return 0 ;;
	*" rstream "*|*librspreload*) return 0 ;; # rsockets connect through the CM
	esac
	return 1
}

# rxe_v6_prelude MODE: guest shell lines that set RNI_GID6 to the index of
# rxe's RoCE v2 GID of that kind (ll: fe80::/64 from the MAC; global: the
# job first gives eth0 fd91::N/64, without DAD so that rxe adds its GID at
# once), waiting up to 5 s for rxe to list it; the job fails without it.
# Only the first 16 of rxe's 1024 entries are read: the table fills from
# the start, and a cat per entry costs under TCG.
# Then up to 5 s for the interface's link-local address to finish duplicate
# address detection (IFA_F_TENTATIVE in /proc/net/if_inet6): right after
# the guest's boot, rxe's kernel cannot resolve an AH's neighbour from a
# tentative address (ibv_create_ah fails after a second).
rxe_v6_prelude() {
	local pat='fe80:*'
	[ "$1" = global ] && pat="$NET_V6_PREFIX:*"
	cat <<EOF
[ "$1" = global ] && ip -6 addr add $NET_V6_PREFIX::\${RNI_IP##*.}/64 dev \$RNI_IFACE nodad 2>/dev/null
p=/sys/class/infiniband/\$RNI_RXE/ports/1 RNI_GID6=
for i in \$(seq 50); do
	for n in \$(seq 0 15); do
		case "\$(cat \$p/gids/\$n)" in $pat) grep -q v2 \$p/gid_attrs/types/\$n 2>/dev/null && RNI_GID6=\$n && break ;; esac
	done
	[ -n "\$RNI_GID6" ] && break
	sleep 0.1
done
[ -n "\$RNI_GID6" ] || { echo "no RoCE v2 GID $pat on \$RNI_RXE"; exit 1; }
for i in \$(seq 50); do
	t=
	while read -r a x l scope flags name; do
		[ "\$name" = "\$RNI_IFACE" ] && [ "\$scope" = 20 ] && [ \$((0x\$flags & 0x40)) -ne 0 ] && t=1
	done </proc/net/if_inet6
	[ -z "\$t" ] && break
	sleep 0.1
done
EOF
}

# ours_tool TOOL: the path of our program for TOOL
ours_tool() {
	case "$1" in
	rc_pingpong) echo "$BUILD/tools/roce-pingpong" ;;
	uc_pingpong) echo "$BUILD/tools/roce-uc-pingpong" ;;
	ud_pingpong) echo "$BUILD/tools/roce-ud-pingpong" ;;
	srq_pingpong) echo "$BUILD/tools/roce-srq-pingpong" ;;
	rping) echo "$BUILD/tools/roce-rping" ;;
	*) echo "$BUILD/tools/roce-perf" ;;
	esac
}

# is_debian EXTRA: is our side Debian's program under roce-run?
is_debian() {
	case " $1 " in *" run:debian "*) return 0 ;; esac
	return 1
}

# ours_debian_cmd TOOL SIZE ITERS MTU EXTRA [SERVER_IP]: Debian's program
# for TOOL under roce-run on our interface, with the flags rxe's side has
# and our IPv4 GID (index 1: docs/verbs.md), and roce-run's flags from
# the rr:FLAG words (rr:--engine-thread). A sanitized drop-in gets
# clang's ASan runtime preloaded into the program (which has none), and
# perftest and OpenMPI no leak check (perftest frees neither its device
# list nor its parameters at exit).
ours_debian_cmd() {
	local tool=$1 size=$2 iters=$3 mtu=$4 extra server=${6:-} pre= lib leaks=1
	extra=$(extra_for ours "$5")
	lib=$(find "$BUILD" -path '*/roce/ibverbs/libibverbs.so.1' -print -quit)
	case "$tool" in mpi_pingpong) leaks=0 ;; *pingpong) ;; *) leaks=0 ;; esac
	# (the symbols read whole: grep -q ending the pipe early would fail
	# it under pipefail)
	if [ -n "$lib" ] && [[ "$(nm -D "$lib" 2>/dev/null)" == *" U __asan_init"* ]]; then
		pre="env ROCE_RUN_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)"
		pre+=" ASAN_OPTIONS=verify_asan_link_order=0:abort_on_error=1:detect_leaks=$leaks"
	fi
	pre+="${pre:+ }$BUILD/tools/roce-run --netdev $NET_US_IF --ip $NET_US_IP"
	# rr:FLAG words are roce-run's own (rr:--engine-thread)
	for w in $(extra_word rr "$5"); do pre+=" $w"; done
	pre+=" --"
	if is_app "$tool"; then
		app_cmd ours "$tool" "$size" "$iters" "$5" "$server" "$pre"
		return
	fi
	case "$tool" in
	rc_pingpong|uc_pingpong|srq_pingpong)
		echo "$pre ibv_$tool -g 1 -s $size -n $iters -m $mtu $extra $server" ;;
	ud_pingpong)
		echo "$pre ibv_$tool -g 1 -s $size -n $iters $extra $server" ;;
	rping)
		# librdmacm's own, on the drop-in librdmacm: the CM finds the
		# device and GID from the address, as rxe's side does
		echo "$pre $(rping_cmd "$server" "$NET_US_IP" "$size" "$iters" "$extra")" ;;
	ucmatose)
		echo "$pre $(ucmatose_cmd "$server" "$size" "$iters" "$extra")" ;;
	*)
		echo "$pre ib_$tool -x 1 -F -s $size -n $iters -m $mtu $extra $server" ;;
	esac
}

# ours_cmd TOOL SIZE ITERS MTU EXTRA [SERVER_IP]: our command line, run in
# $NET_US on roce0 with our address. Over IPv6 our GID table is that of
# docs/design.md: 0 the link-local GID, 1 the IPv4 one, 2 the --ip6 one.
ours_cmd() {
	local tool=$1 size=$2 iters=$3 mtu=$4 extra server=${6:-} bin gid=
	if is_debian "$5"; then
		ours_debian_cmd "$@"
		return
	fi
	extra=$(extra_for ours "$5")
	bin=$(ours_tool "$tool")
	case "$(v6_mode "$5")" in
	ll) gid=0 ;;
	global) gid="2 --ip6 $NET_US_IP6" ;;
	esac
	case "$tool" in
	rc_pingpong|uc_pingpong|srq_pingpong)
		echo "$bin --netdev $NET_US_IF --ip $NET_US_IP $(ours_counter_flags "$bin")${gid:+ -g $gid} -s $size -n $iters -m $mtu $extra $server" ;;
	ud_pingpong)
		echo "$bin --netdev $NET_US_IF --ip $NET_US_IP $(ours_counter_flags "$bin")${gid:+ -g $gid} -s $size -n $iters $extra $server" ;;
	rping)
		# rping's flags, as rxe's side has them; the CM finds the rest
		if [ -n "$server" ]; then
			echo "$bin --netdev $NET_US_IF --ip $NET_US_IP -c -a $server -S $size -C $iters $extra"
		else
			echo "$bin --netdev $NET_US_IF --ip $NET_US_IP -s -a $NET_US_IP -S $size -C $iters $extra"
		fi ;;
	*)
		echo "$bin $tool --netdev $NET_US_IF --ip $NET_US_IP $(ours_counter_flags "$bin")${gid:+ -x $gid} -F -s $size -n $iters -m $mtu $extra $server" ;;
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
	rc_pingpong:*|uc_pingpong:*|ud_pingpong:*|srq_pingpong:*|write_lat:*|send_lat:*) return 0 ;;
	ucmatose:*) return 0 ;; # the server's messages, then the client's replies
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

# rxe_prelude CMD: what a job runs before CMD (the IPv6 GID's index when
# CMD uses it, of the kind RXE_V6_MODE names: the run's v6_mode)
rxe_prelude() {
	case "$1" in *RNI_GID6*) rxe_v6_prelude "${RXE_V6_MODE:-ll}" ;; esac
}

# rxe_client_job CMD SECONDS: a guest job running a client
rxe_client_job() {
	rxe_prelude "$1"
	printf 'timeout %s %s\n%s\n' "$2" "$1" "$RXE_JOB_END"
}

# rxe_server_job CMD SECONDS: a guest job running a server; it touches
# $RNI_JOB.listening once the out-of-band port listens (or the server ended);
# a server that listens through the RDMA CM shows no TCP port, but a CM ID
# in state LISTEN (rdma resource show cm_id)
rxe_server_job() {
	local ready="netstat -ltn 2>/dev/null | grep -q ':$OOB_PORT '" nice=
	uses_cm "$1" && ready="rdma resource show cm_id 2>/dev/null | grep -q LISTEN"
	rxe_prelude "$1"
	if [ "${RXE_SLOW_SERVER:-}" = 1 ]; then
		# a slow server (slow:server): a busy loop at the normal
		# priority beside it, the server at nice 19, so that its own
		# steps take many times longer, as on a loaded host
		echo 'while :; do :; done &'
		echo 'hog=$!'
		nice="nice -n 19 "
	fi
	cat <<EOF
timeout $2 $nice$1 &
p=\$!
i=0
while [ \$i -lt 150 ] && kill -0 \$p 2>/dev/null; do
	$ready && break
	sleep 0.1
	i=\$((i + 1))
done
touch \$RNI_JOB.listening
wait \$p
${nice:+rc=\$?; kill \$hog; (exit \$rc)
}$RXE_JOB_END
EOF
}

# rxe_hw_counters DIR: "name value" for rxe's port counters in the guest
rxe_hw_counters() {
	vm_run "$1" 20 'cd /sys/class/infiniband/$RNI_RXE/ports/1/hw_counters && for f in *; do echo "$f $(cat $f)"; done'
}
