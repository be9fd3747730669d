#!/usr/bin/env bash
# The RDMA applications of Debian's that reach libibverbs through their
# own layers, each side under roce-run in a namespace of a veth pair made
# here: UCX's ucx_perftest over its RC and UD verbs transports (uct's
# active messages; UCP's tag matching over both, as OpenMPI's pml ucx
# uses them) and libfabric's fi_pingpong over the verbs provider's MSG
# endpoints (every byte checked, -c). Each must finish its iterations;
# the capture of the run must hold RoCE frames (the programs fall back
# to TCP or shared memory silently). Skipped per program when its Debian
# package is not installed (ucx-utils, libfabric-bin).
# Usage: apps_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
. "$(dirname "$0")/lib/pair_run.sh"
B=${1:?build dir}
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

# app NAME WANT_REGEX SERVER_ARGS... :: CLIENT_ARGS...: both under
# roce-run (the client gets the server's address last), both exit 0,
# the client prints WANT_REGEX, and RoCE frames crossed the veth
app() {
	local name=$1 want=$2 s=() cap frames why=
	shift 2
	while [ "$1" != :: ]; do s+=("$1"); shift; done
	shift
	cap=$TMP/cap.pcap
	ip netns exec "$NB" timeout 40 tcpdump -i "pb$$" -w "$cap" -U udp port 4791 \
		>/dev/null 2>&1 &
	local tp=$!
	pids+=("$tp")
	sleep 0.5
	WAIT=1.5 pair "${RUN[@]}" "pa$$" -- "${s[@]}" :: "${RUN[@]}" "pb$$" -- "$@" 10.234.12.1
	sleep 0.3
	kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null
	frames=$(tshark -r "$cap" -Y 'infiniband && infiniband.bth.destqp != 1' 2>/dev/null | wc -l)
	[ $crc = 0 ] && [ $src = 0 ] || why=" exit $crc/$src"
	grep -qE -- "$want" "$TMP/cli" || why="$why no '$want'"
	[ "$frames" -ge 50 ] || why="$why only $frames RoCE frames"
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

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
