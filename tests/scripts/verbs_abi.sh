#!/usr/bin/env bash
# The drop-in libibverbs.so.1 against the system's (rdma-core's): the same
# soname; every name the real one exports at its default version, ours
# exports at that version (the compatibility IBVERBS_1.0 copies of names
# IBVERBS_1.1 redefined aside, docs/verbs.md); nothing else exported; and
# every versioned reference of Debian's verbs programs and of the
# libraries they are linked with (librdmacm, libmlx5, libefa) found in
# ours, as the loader with BIND_NOW needs them. (Ours also exports the
# engine's CM to the drop-in librdmacm under ROCE_RDMACM_PRIVATE, a node
# no program of rdma-core's names: left out of the comparison, and
# rdmacm_abi.sh checks it.)
# Usage: verbs_abi.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/elf_abi.sh"
B=${1:?build dir}
abi_libs "$B" libibverbs.so.1
[ -n "$ours" ] || { echo "FAIL: no drop-in libibverbs.so.1 under $B"; exit 1; }
abi_start verbs_abi

exports() { abi_exports "$1" | grep -v '^IBVERBS' | grep -v 'ROCE_RDMACM_PRIVATE'; }

[ "$(objdump -p "$ours" | awk '/SONAME/ { print $2 }')" = libibverbs.so.1 ] ||
	fail "the drop-in's soname is not libibverbs.so.1"
exports "$ours" >"$tmp/ours"
exports "$real" | grep -v '(hidden)' >"$tmp/real"
exports "$real" | sed 's/ (hidden)$//' | sort -u >"$tmp/real-all"
grep -q '(hidden)' "$tmp/ours" && fail "the drop-in exports hidden versions: $(grep '(hidden)' "$tmp/ours" | head -3)"
missing=$(comm -23 "$tmp/real" "$tmp/ours")
[ -z "$missing" ] || fail "names the real libibverbs exports that ours lacks: $missing"
# (a name the real one keeps only as a compatibility symbol, such as
# ibv_register_driver, may be a default one here)
extra=$(comm -13 "$tmp/real-all" "$tmp/ours")
[ -z "$extra" ] || fail "names ours exports that the real one does not: $extra"
[ "$(wc -l <"$tmp/ours")" -gt 140 ] || fail "only $(wc -l <"$tmp/ours") names exported"

abi_users IBVERBS /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong \
	  /usr/bin/ibv_ud_pingpong /usr/bin/ibv_srq_pingpong /usr/bin/ib_write_bw \
	  /usr/bin/ib_atomic_lat /usr/lib/x86_64-linux-gnu/librdmacm.so.1 \
	  /usr/lib/x86_64-linux-gnu/libmlx5.so.1 /usr/lib/x86_64-linux-gnu/libefa.so.1
abi_end verbs_abi
