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
	ip netns exec "$NA" timeout 30 env ${RR_ENV[@]+"${RR_ENV[@]}"} "$RR" --netdev "ya$$" -- "$@" \
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

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
