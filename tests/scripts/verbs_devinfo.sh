#!/usr/bin/env bash
# Debian's ibv_devices and ibv_devinfo -v under roce-run in a network
# namespace, on a veth made here: one device roce0, its port ACTIVE on an
# Ethernet link layer, the active MTU the interface's (1024 on MTU 1500,
# 4096 on MTU 9000, as rxe takes it), the GID table (0 link-local, 1 the
# IPv4-mapped address, RoCE v2), the node GUID the MAC's EUI-64; and the
# drop-in without roce-run's environment: no device, said on stderr.
# Usage: verbs_devinfo.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=vdi-a-$$ NB=vdi-b-$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_devinfo: SKIP (needs root and network namespaces)"; exit 0
fi
if ! rr_have ibv_devices ibv_devinfo; then
	echo "verbs_devinfo: SKIP (ibverbs-utils not installed)"; exit 0
fi
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "da$$" "db$$" 10.233.8.1/24 10.233.8.2/24 || { echo "FAIL: veth setup"; exit 1; }

mac=$(ip -n "$NA" -o link show "da$$" | grep -oE 'link/ether [0-9a-f:]+' | cut -d' ' -f2)
# the MAC's EUI-64, U/L bit flipped (RFC 4291 2.5.1)
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
guid=$(printf '%02x%s:%s%s:%s%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" ff fe "$m3" "$m4" "$m5")

RR_TIMEOUT=30
rr "$NA" "da$$" ibv_devices >"$TMP/devices" 2>&1 ||
	fail "ibv_devices exited non-zero"
grep -qE "^ +roce0[[:space:]]+${guid//:/}\$" "$TMP/devices" || fail "ibv_devices does not list roce0 with GUID ${guid//:/}"
[ "$(grep -c roce0 "$TMP/devices")" = 1 ] || fail "ibv_devices lists other than one device"

check_devinfo() { # MTU ACTIVE_MTU_LINE
	rr "$NA" "da$$" ibv_devinfo -v >"$TMP/devinfo" 2>&1 ||
		fail "ibv_devinfo -v exited non-zero (MTU $1)"
	for re in "^hca_id:	roce0\$" "node_guid:	+$guid\$" "phys_port_cnt:	+1\$" \
		  "state:	+PORT_ACTIVE \\(4\\)\$" "link_layer:	+Ethernet\$" \
		  "max_mtu:	+4096 \\(5\\)\$" "active_mtu:	+$2\$" \
		  "GID\\[  0\\]:	+fe80::[0-9a-f:]+, RoCE v2\$" \
		  "GID\\[  1\\]:	+::ffff:10\\.233\\.8\\.1, RoCE v2\$" \
		  "max_qp_wr:	+8192\$" "atomic_cap:	+ATOMIC_HCA \\(1\\)\$"; do
		grep -qE "$re" "$TMP/devinfo" || fail "ibv_devinfo -v (MTU $1) lacks /$re/"
	done
	grep -q "GID\[  2\]" "$TMP/devinfo" && fail "ibv_devinfo -v (MTU $1) shows a GID 2 the port has not"
	grep -q "not supported by this device" "$TMP/devinfo" && fail "ibv_devinfo -v (MTU $1) met an unsupported verb"
}
check_devinfo 1500 "1024 \\(3\\)"
ip -n "$NA" link set "da$$" mtu 9000
check_devinfo 9000 "4096 \\(5\\)"

# the drop-in without roce-run: no device, and why
ip netns exec "$NA" env ${RR_ENV[@]+"${RR_ENV[@]/ROCE_RUN_PRELOAD=/LD_PRELOAD=}"} LD_LIBRARY_PATH="$(dirname "$(find "$B" -path '*/roce/ibverbs/libibverbs.so.1' -print -quit)")" \
	ibv_devices >"$TMP/none" 2>&1
grep -q "roce0" "$TMP/none" && fail "the drop-in without ROCE_RUN_NETDEV lists roce0"
grep -q "ROCE_RUN_NETDEV is not set" "$TMP/none" || fail "the drop-in without ROCE_RUN_NETDEV does not say why it has no device"

if [ $fails = 0 ]; then
	echo "verbs_devinfo: ok"
	exit 0
fi
sed "s/^/  devices| /" "$TMP/devices"; sed 's/^/  devinfo| /' "$TMP/devinfo"
exit 1
