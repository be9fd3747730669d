#!/usr/bin/env bash
# tests/verbs/verbs_edges.c, a libibverbs program of ours linked with the
# drop-in, under roce-run on a veth made here: refusals with their errno,
# argument checks, queries after modify, bad_wr of a batch, teardown (its
# own CHECKs, exit 0); and here, that each verb not offered named itself
# on stderr in one line.
# Usage: verbs_edges.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/netns.sh"
B=${1:?build dir}
NA=ved-a-$$ NB=ved-b-$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "verbs_edges: SKIP (needs root and network namespaces)"; exit 0
fi
[ -x "$B/tests/verbs_edges" ] || { echo "FAIL: no $B/tests/verbs_edges"; exit 1; }
netns_script_init "$NA" "$NB"
netns_pair "$NA" "$NB" "va$$" "vb$$" 10.237.8.1/24 10.237.8.2/24 || { echo "FAIL: veth setup"; exit 1; }

# the program is built with the sanitizers of its build, so it brings
# their runtime itself: no ROCE_RUN_PRELOAD
ip netns exec "$NA" timeout -k 5 60 "$B/tools/roce-run" --netdev "va$$" -- \
	"$B/tests/verbs_edges" 10.237.8.2 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] || fail "verbs_edges exited $rc"
grep -qx "verbs_edges: ok" "$TMP/out" || fail "verbs_edges did not finish"
for verb in "ibv_reg_mr with memory windows" \
	    "ibv_reg_mr_iova with an iova other than the address" \
	    "ibv_create_qp of a QP type other than RC, UC or UD" "ibv_modify_srq resizing" \
	    "ibv_rereg_mr of the translation"; do
	[ "$(grep -c "^libibverbs (roce-run): $verb.*: not supported by this device\$" "$TMP/err")" = 1 ] ||
		fail "stderr does not name '$verb' once"
done
grep -q "^libibverbs (roce-run): ibv_modify_qp: attribute mask 0x4000 not supported" "$TMP/err" ||
	fail "stderr does not name ibv_modify_qp's mask"
grep -q "^libibverbs (roce-run): ibv_create_cq_ex: wc_flags 0x80 not supported" "$TMP/err" ||
	fail "stderr does not name ibv_create_cq_ex's wc_flags"
grep -q "an address vector without a GRH" "$TMP/err" || fail "stderr does not say why an AH without a GRH is refused"
grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$TMP/err" && fail "sanitizer report"

if [ $fails = 0 ]; then
	echo "verbs_edges: ok"
	exit 0
fi
sed 's/^/  stderr| /' "$TMP/err"
exit 1
