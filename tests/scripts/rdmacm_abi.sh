#!/usr/bin/env bash
# The drop-in librdmacm.so.1 against the system's (rdma-core's): the same
# soname; every name the real one exports, at the same version, and
# nothing else; every RDMACM reference of Debian's librdmacm programs
# (rping, ucmatose, udaddy, perftest's) found in ours, as the loader with
# BIND_NOW needs them; its libibverbs is the drop-in (the engine's CM
# under ROCE_RDMACM_PRIVATE, which the real libibverbs lacks).
# Usage: rdmacm_abi.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib/elf_abi.sh"
B=${1:?build dir}
abi_libs "$B" librdmacm.so.1
[ -n "$ours" ] || { echo "rdmacm_abi: SKIP (no drop-in librdmacm.so.1: librdmacm-dev missing)"; exit 0; }
abi_start rdmacm_abi

# (librdmacm has no hidden versions: compared as names and nodes)
exports() { abi_exports "$1" | sed 's/ (hidden)$//' | grep -v '^RDMACM'; }

[ "$(objdump -p "$ours" | awk '/SONAME/ { print $2 }')" = librdmacm.so.1 ] ||
	fail "the drop-in's soname is not librdmacm.so.1"
exports "$ours" >"$tmp/ours"
exports "$real" >"$tmp/real"
missing=$(comm -23 "$tmp/real" "$tmp/ours")
[ -z "$missing" ] || fail "names the real librdmacm exports that ours lacks: $missing"
extra=$(comm -13 "$tmp/real" "$tmp/ours")
[ -z "$extra" ] || fail "names ours exports that the real one does not: $extra"
[ "$(wc -l <"$tmp/ours")" -gt 60 ] || fail "only $(wc -l <"$tmp/ours") names exported"
objdump -T "$ours" | grep -q 'ROCE_RDMACM_PRIVATE.*rv_cm_open' ||
	fail "ours does not take the engine's CM from the drop-in libibverbs"
abi_users RDMACM /usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/rdma_server \
	  /usr/bin/rdma_client /usr/bin/ib_write_bw /usr/bin/rstream
abi_end rdmacm_abi
