#!/usr/bin/env bash
# roce-run runs any program that reaches libibverbs, however it gets
# there: through a shell (sh -c), a script wrapper, an interpreter that
# dlopen()s the library (python3's ctypes, as python3-pyverbs and the
# applications' modules do), each child of the tree finding the drop-in
# and its device roce0. In a network namespace with a veth made here.
# Usage: roce_run_any.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
. "$(dirname "$0")/lib/roce_run.sh"
B=${1:?build dir}
NA=rra-a-$$ NB=rra-b-$$
fails=0 pass=0

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "roce_run_any: SKIP (needs root and network namespaces)"; exit 0
fi
rr_have ibv_devices ibv_devinfo || { echo "roce_run_any: SKIP (no ibverbs-utils)"; exit 0; }
# python3 leaves its objects to the exit: no LeakSanitizer in the programs
RR_LEAKS=0
rr_setup "$B" || exit 1
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "ya$$" "yb$$" 10.234.9.1/24 10.234.9.2/24 || { echo "FAIL: veth setup"; exit 1; }

# run NAME WANT -- ARGS...: roce-run ARGS in NA exits 0 and prints WANT
run() {
	local name=$1 want=$2 rc
	shift 3
	ip netns exec "$NA" timeout -k 5 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "ya$$" -- "$@" \
		>"$TMP/out" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -qE -- "$want" "$TMP/out"; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fails=$((fails + 1)); echo "FAIL $name: exit $rc, output:"
		head -20 "$TMP/out" | sed 's/^/  | /'
	fi
}

run "sh -c: a shell's child" "roce0" -- sh -c 'ibv_devices'
printf '#!/bin/sh\nexec ibv_devinfo -d roce0\n' >"$TMP/wrap.sh"; chmod +x "$TMP/wrap.sh"
run "a script wrapper" "state:.*PORT_ACTIVE" -- "$TMP/wrap.sh"
if [ -x /usr/bin/python3 ]; then
	cat >"$TMP/dl.py" <<'PY'
import ctypes
v = ctypes.CDLL("libibverbs.so.1")
v.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
v.ibv_get_device_name.restype = ctypes.c_char_p
v.ibv_get_device_name.argtypes = [ctypes.c_void_p]
n = ctypes.c_int(0)
l = v.ibv_get_device_list(ctypes.byref(n))
print("devices", n.value, v.ibv_get_device_name(l[0]).decode() if n.value else "-")
PY
	run "python3 dlopen()s libibverbs.so.1 (ctypes)" "^devices 1 roce0$" -- /usr/bin/python3 "$TMP/dl.py"
else
	echo "skip python3 (no /usr/bin/python3)"
fi

# Debian's python3-pyverbs (rdma-core's Cython bindings, which link
# libibverbs.so.1): the device, its GID, objects down to a QP of 6 SGEs
if /usr/bin/python3 -c 'import pyverbs' 2>/dev/null; then
	cat >"$TMP/pv.py" <<'PY'
import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
lst = d.get_device_list()
ctx = d.Context(name=lst[0].name.decode())
pd = PD(ctx)
mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
cq = CQ(ctx, 16)
cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=6, max_recv_sge=5)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
print("pyverbs", len(lst), lst[0].name.decode(), ctx.query_gid(1, 1),
      ctx.query_port(1).state, qp.qp_state, mr.length)
PY
	run "python3-pyverbs: device, GID, PD, MR, CQ, QP" \
		"^pyverbs 1 roce0 0000:0000:0000:0000:0000:ffff:0aea:0901 4 0 4096$" \
		-- /usr/bin/python3 "$TMP/pv.py"
else
	echo "skip python3-pyverbs (not installed)"
fi

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
