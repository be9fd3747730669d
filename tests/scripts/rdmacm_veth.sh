#!/usr/bin/env bash
# librdmacm programs under roce-run over a veth pair between two network
# namespaces made here, each side its own roce-run (the drop-in
# librdmacm.so.1 over the drop-in libibverbs.so.1):
#   - tests/verbs/rdmacm_pair, our own program against rdma-core's
#     headers: events, private data, REJECTED 8 and 28, a WRITE and a
#     SEND on the CM's QP, SIDR and a datagram, synchronous endpoints,
#     ADDR_ERROR; and the refusals' lines on stderr;
#   - Debian's rping (rdmacm-utils) against itself (IPv4, a size sweep,
#     -q: QPs moved with rdma_init_qp_attr and rdma_establish; an IPv6
#     address of the interface's) and against our roce-rping, both roles;
#   - Debian's ucmatose (several connections, -m migrating IDs, TOS and
#     ACK timeout) and udaddy (RDMA_PS_UDP);
#   - `rocectl cm` seeing the drop-in's CM; the library without roce-run.
# Usage: rdmacm_veth.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
. "$(dirname "$0")/lib/pair_run.sh"
B=${1:?build dir}
NA=rcm-a-$$ NB=rcm-b-$$ IA=cma$$ IB=cmb$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "rdmacm_veth: SKIP (needs root and network namespaces)"; exit 0
fi
[ -e "$B/lib/roce/ibverbs/librdmacm.so.1" ] ||
	{ echo "rdmacm_veth: SKIP (no drop-in librdmacm: librdmacm-dev missing)"; exit 0; }
rr_have rping ucmatose udaddy ||
	{ echo "rdmacm_veth: SKIP (no rping, ucmatose or udaddy: rdmacm-utils missing)"; exit 0; }
# librdmacm keeps its device (context, PD, CM) open while the program
# leaves IDs or channels open at exit, as rdma-core's does: no LeakSanitizer
RR_LEAKS=0
rr_setup "$B" || exit 1
# Debian's programs under roce-run (a sanitized drop-in's runtime
# preloaded: lib/roce_run.sh); our rdmacm_pair brings its own
RRD=(env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR")
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "$IA" "$IB" 10.241.7.1/24 10.241.7.2/24 || { echo "FAIL: veth setup"; exit 1; }
for ns in "$NA" "$NB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
ip -n "$NA" addr add fd00:241:7::1/64 dev "$IA" nodad
ip -n "$NB" addr add fd00:241:7::2/64 dev "$IB" nodad


# ---- our program ------------------------------------------------------------
ip netns exec "$NA" timeout -k 5 60 "$RR" --netdev "$IA" -- "$B/tests/rdmacm_pair" server \
	10.241.7.1 7470 >"$TMP/srv" 2>"$TMP/srv.err" &
sp=$!
pids+=("$sp")
for i in $(seq 50); do grep -q ready "$TMP/srv" && break; sleep 0.1; done
# rocectl cm finds the drop-in's CM (its listeners) in the program
ip netns exec "$NA" "$B/tools/rocectl" cm >"$TMP/cm" 2>&1
grep -q "listen" "$TMP/cm" && result "rocectl cm: the drop-in's listeners" ||
	result "rocectl cm: the drop-in's listeners" " $(head -c 300 "$TMP/cm")"
ip netns exec "$NB" timeout -k 5 60 "$RR" --netdev "$IB" -- "$B/tests/rdmacm_pair" client \
	10.241.7.1 7470 10.241.7.9 >"$TMP/cli" 2>"$TMP/cli.err"
crc=$?
wait "$sp"
src=$?
cat "$TMP/srv.err" >>"$TMP/srv"
cat "$TMP/cli.err" >>"$TMP/cli"
why=
[ $crc = 0 ] && [ $src = 0 ] || why+=" exit $src/$crc"
grep -qx "rdmacm_pair: ok" "$TMP/srv" || why+=" server"
grep -qx "rdmacm_pair: ok" "$TMP/cli" || why+=" client"
for line in "rdma_join_multicast: multicast is not supported by this device" \
	    "rsocket: datagram rsockets (SOCK_DGRAM) are not supported: stream rsockets only (said once)" \
	    "rdma_create_id: port spaces other than RDMA_PS_TCP and RDMA_PS_UDP are not supported"; do
	[ "$(grep -c "^librdmacm (roce-run): $line" "$TMP/srv.err")" = 1 ] || why+=" no '$line'"
done
grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$TMP/srv" "$TMP/cli" && why+=" sanitizer"
result "rdmacm_pair: events, REJECTED 8/28, WRITE+SEND, SIDR, endpoints, ADDR_ERROR" $why

# ---- rping --------------------------------------------------------------------
# rping_check NAME COUNT: both exit 0, COUNT ping lines each side (-v)
rping_check() {
	local why=
	[ $crc = 0 ] && [ $src = 0 ] || why+=" exit $src/$crc"
	[ "$(grep -c 'ping data: rdma-ping-' "$TMP/cli")" = "$2" ] || why+=" client-lines"
	[ "$(grep -c 'server ping data: rdma-ping-' "$TMP/srv")" = "$2" ] || why+=" server-lines"
	grep -q 'ping data: rdma-ping-0: ABCDEF' "$TMP/cli" || why+=" ping0"
	result "$1" $why
}
for size in 64 1000 4096 65535; do
	pair "${RRD[@]}" --netdev "$IA" -- rping -s -v -V -S $size -C 4 -a 10.241.7.1 :: \
	     "${RRD[@]}" --netdev "$IB" -- rping -c -v -V -S $size -C 4 -a 10.241.7.1
	rping_check "rping -s/-c -V -S $size" 4
done
pair "${RRD[@]}" --netdev "$IA" -- rping -s -v -q -C 5 -a 10.241.7.1 :: \
     "${RRD[@]}" --netdev "$IB" -- rping -c -v -q -C 5 -a 10.241.7.1
rping_check "rping -q (rdma_init_qp_attr, rdma_establish)" 5
pair "${RRD[@]}" --netdev "$IA" -- rping -s -v -V -C 5 -a fd00:241:7::1 :: \
     "${RRD[@]}" --netdev "$IB" -- rping -c -v -V -C 5 -a fd00:241:7::1
rping_check "rping over IPv6 (GID 2)" 5
# against roce-rping, the project's own, both roles
pair "$B/tools/roce-rping" --netdev "$IA" -s -v -V -C 5 -a 10.241.7.1 :: \
     "${RRD[@]}" --netdev "$IB" -- rping -c -v -V -C 5 -a 10.241.7.1
rping_check "rping -c against roce-rping -s" 5
pair "${RRD[@]}" --netdev "$IA" -- rping -s -v -V -C 5 -a 10.241.7.1 :: \
     "$B/tools/roce-rping" --netdev "$IB" -c -v -V -C 5 -a 10.241.7.1
rping_check "rping -s against roce-rping -c" 5
# nobody on the port (a CM on the peer, listening on another): REJECTED,
# status 8, as with the kernel's CM
ip netns exec "$NA" timeout -k 5 60 "${RRD[@]}" --netdev "$IA" -- rping -s -a 10.241.7.1 -C 1 \
	>"$TMP/srv" 2>&1 &
sp=$!
pids+=("$sp")
sleep 0.7
ip netns exec "$NB" timeout -k 5 60 "${RRD[@]}" --netdev "$IB" -- rping -c -a 10.241.7.1 -p 7999 -C 1 \
	>"$TMP/cli" 2>&1
crc=$?
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
why=
[ $crc != 0 ] || why+=" exit 0"
grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$TMP/cli" || why+=" no REJECTED 8"
result "rping -c to a port nobody listens on: REJECTED 8" $why

# ---- ucmatose, udaddy ------------------------------------------------------------
ucma_check() {
	local why=
	[ $crc = 0 ] && [ $src = 0 ] || why+=" exit $src/$crc"
	grep -q "^return status 0" "$TMP/cli" || why+=" client"
	grep -q "^return status 0" "$TMP/srv" || why+=" server"
	result "$1" $why
}
pair "${RRD[@]}" --netdev "$IA" -- ucmatose -c 8 -C 20 -S 1000 :: \
     "${RRD[@]}" --netdev "$IB" -- ucmatose -s 10.241.7.1 -c 8 -C 20 -S 1000
ucma_check "ucmatose -c 8 -C 20"
pair "${RRD[@]}" --netdev "$IA" -- ucmatose -m -t 32 -a 18 :: \
     "${RRD[@]}" --netdev "$IB" -- ucmatose -s 10.241.7.1 -m -t 32 -a 18
ucma_check "ucmatose -m -t 32 -a 18 (migrate, TOS, ACK timeout)"
why=
grep -q "migrating to new event channel" "$TMP/srv" || why=" no migration"
result "ucmatose -m: the IDs on a new channel" $why
pair "${RRD[@]}" --netdev "$IA" -- ucmatose -f ipv6 -b fd00:241:7::1 :: \
     "${RRD[@]}" --netdev "$IB" -- ucmatose -f ipv6 -s fd00:241:7::1
ucma_check "ucmatose over IPv6"
pair "${RRD[@]}" --netdev "$IA" -- udaddy -c 4 -C 10 :: \
     "${RRD[@]}" --netdev "$IB" -- udaddy -s 10.241.7.1 -c 4 -C 10
ucma_check "udaddy -c 4 (RDMA_PS_UDP: SIDR)"

# ---- without roce-run ---------------------------------------------------------------
env ${RR_ENV[@]+"${RR_ENV[@]/ROCE_RUN_PRELOAD=/LD_PRELOAD=}"} \
	LD_LIBRARY_PATH="$B/lib/roce/ibverbs" ROCE_RUN_NETDEV= timeout -k 5 20 ucmatose \
	>"$TMP/cli" 2>&1
crc=$?
: >"$TMP/srv"
why=
[ $crc != 0 ] || why+=" exit 0"
grep -q "no device: ROCE_RUN_NETDEV is not set" "$TMP/cli" || why+=" no reason"
result "the drop-in without roce-run: no device, and why" $why

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
