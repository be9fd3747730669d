#!/usr/bin/env bash
# roce-run's device files (tools/roce-run/view.c): the program's tree sees
# /dev/infiniband/uverbs0 (a character device that refuses commands) and
# /sys/class/infiniband/roce0 with the port's attributes and its GID table
# as the drop-in builds it (checked against Debian's ibv_devinfo, which
# reads the drop-in), the rest of /dev and /sys/class as before, and
# nothing outside the program's mount namespace changed; --no-dev-files
# makes none (UCX, which needs them, runs in apps_veth.sh).
# Usage: roce_run_view.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=rrv-a-$$ NB=rrv-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "roce_run_view: SKIP (needs root and network namespaces)"; exit 0
fi
rr_have ibv_devinfo || { echo "roce_run_view: SKIP (no ibverbs-utils)"; exit 0; }
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "va$$" "vb$$" 10.234.11.1/24 10.234.11.2/24 || { echo "FAIL: veth setup"; exit 1; }

# check NAME CONDITION...: ok when the command succeeds
check() {
	local name=$1; shift
	if "$@"; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name"
		sed 's/^/  | /' "$TMP/out" | head -30
	fi
}

before_dev=$(ls -d /dev/infiniband 2>/dev/null; ls /dev/infiniband 2>/dev/null)
before_sys=$(ls /sys/class/infiniband 2>/dev/null)

# everything the program's tree sees, in one run
ip netns exec "$NA" timeout -k 5 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "va$$" -- sh -c '
	d=/sys/class/infiniband/roce0; p=$d/ports/1
	stat -c "uverbs %F %t:%T" /dev/infiniband/uverbs0
	[ -r /dev/infiniband/uverbs0 ] && [ -w /dev/infiniband/uverbs0 ] && echo "uverbs rw"
	echo x 2>/dev/null >/dev/infiniband/uverbs0 || echo "uverbs refuses"
	touch /dev/infiniband/new 2>/dev/null || echo "dev read-only"
	for f in node_type node_guid $p/state $p/phys_state $p/link_layer $p/gids/0 $p/gids/1 \
		 $p/gids/2 $p/gid_attrs/types/0 $p/gid_attrs/types/1 $p/gid_attrs/ndevs/1 \
		 /sys/class/infiniband_verbs/uverbs0/ibdev; do
		case $f in /*) ;; *) f=$d/$f ;; esac
		echo "$f=$(cat $f)"
	done
	[ -e $p/gid_attrs/types/2 ] || echo "no type past the table"
	[ -c /dev/null ] && echo hi >/dev/null && echo "dev/null there"
	[ -d /dev/pts ] && [ -e /dev/ptmx ] && echo "dev/pts there"
	[ -e /sys/class/net/va'$$' ] && echo "sys/class/net there"
	echo "env ROCE_RUN_SYSFS=$ROCE_RUN_SYSFS"
	ibv_devinfo -v -d roce0
' >"$TMP/out" 2>&1
P=/sys/class/infiniband/roce0/ports/1
check "uverbs0 is a character device (1:7), rw" grep -q "^uverbs character special file 1:7" "$TMP/out"
check "uverbs0 read and write allowed" grep -q "^uverbs rw" "$TMP/out"
check "a command written to uverbs0 fails" grep -q "^uverbs refuses" "$TMP/out"
check "/dev/infiniband read-only" grep -q "^dev read-only" "$TMP/out"
check "node_type 1: CA" grep -qx "/sys/class/infiniband/roce0/node_type=1: CA" "$TMP/out"
check "port ACTIVE" grep -qx "$P/state=4: ACTIVE" "$TMP/out"
check "port LinkUp" grep -qx "$P/phys_state=5: LinkUp" "$TMP/out"
check "link layer Ethernet" grep -qx "$P/link_layer=Ethernet" "$TMP/out"
check "GID 1: the IPv4-mapped GID of 10.234.11.1" \
	grep -qx "$P/gids/1=0000:0000:0000:0000:0000:ffff:0aea:0b01" "$TMP/out"
check "GID 1's type RoCE v2" grep -qx "$P/gid_attrs/types/1=RoCE v2" "$TMP/out"
check "GID 1's netdev" grep -qx "$P/gid_attrs/ndevs/1=va$$" "$TMP/out"
check "a slot past the table reads zeros, no type" grep -q "^no type past the table" "$TMP/out"
check "uverbs0's ibdev" grep -qx "/sys/class/infiniband_verbs/uverbs0/ibdev=roce0" "$TMP/out"
check "the rest of /dev (null, pts)" grep -q "^dev/pts there" "$TMP/out"
check "/dev/null" grep -q "^dev/null there" "$TMP/out"
check "the rest of /sys/class (net)" grep -q "^sys/class/net there" "$TMP/out"
check "the drop-in told (ROCE_RUN_SYSFS=1)" grep -qx "env ROCE_RUN_SYSFS=1" "$TMP/out"
# the files against what Debian's ibv_devinfo reads through the drop-in
guid=$(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' "$TMP/out")
check "node_guid as ibv_devinfo's ($guid)" \
	grep -qx "/sys/class/infiniband/roce0/node_guid=$guid" "$TMP/out"
for i in 0 1; do
	g=$(sed -n "s/^[[:space:]]*GID\[ *$i\]:[[:space:]]*\([0-9a-f:.]*\).*/\1/p" "$TMP/out" | head -1)
	s=$(sed -n "s|^$P/gids/$i=||p" "$TMP/out")
	check "GID $i as ibv_devinfo's ($g)" python3 -c '
import ipaddress, sys
a, b = sys.argv[1], sys.argv[2]
sys.exit(0 if a and b and ipaddress.IPv6Address(a) == ipaddress.IPv6Address(b) else 1)' "$g" "$s"
done
after_dev=$(ls -d /dev/infiniband 2>/dev/null; ls /dev/infiniband 2>/dev/null)
after_sys=$(ls /sys/class/infiniband 2>/dev/null)
check "nothing changed outside the program's namespace" \
	test "$before_dev|$before_sys" = "$after_dev|$after_sys"

# --ibdev: the device and its files under another name (as a peer that
# hands its device's name over expects: ucx_perftest)
ip netns exec "$NA" timeout -k 5 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --ibdev rxe0 --netdev "va$$" \
	-- sh -c 'ibv_devices; cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1
		  cat /sys/class/infiniband_verbs/uverbs0/ibdev; ls /sys/class/infiniband' \
	>"$TMP/out" 2>&1
check "--ibdev rxe0: ibv_devices lists rxe0" grep -qE "^ +rxe0 " "$TMP/out"
check "--ibdev rxe0: its files" test "$(tail -3 "$TMP/out" | paste -sd' ')" = "RoCE v2 rxe0 rxe0"
ROCE_RUN_IBDEV=../x ip netns exec "$NA" timeout -k 5 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" \
	--netdev "va$$" -- ibv_devices >"$TMP/out" 2>&1
check "a bad ROCE_RUN_IBDEV: refused, and why" \
	grep -q "^roce-run: ROCE_RUN_IBDEV=../x: not a device name" "$TMP/out"

ip netns exec "$NA" timeout -k 5 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --no-dev-files --netdev "va$$" \
	-- sh -c 'echo "sysfs=${ROCE_RUN_SYSFS:-unset}"; ls /sys/class/infiniband 2>&1' >"$TMP/out" 2>&1
check "--no-dev-files: none made" grep -qx "sysfs=unset" "$TMP/out"
if grep -q roce0 "$TMP/out"; then check "--no-dev-files: no roce0 in sysfs" false; fi

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
