#!/usr/bin/env bash
# The drop-in librdmacm.so.1 against the system's (rdma-core's): the same
# soname; every name the real one exports, at the same version, and
# nothing else; every RDMACM reference of Debian's librdmacm programs
# (rping, ucmatose, udaddy, perftest's) found in ours, as the loader with
# BIND_NOW needs them; its libibverbs is the drop-in (the engine's CM
# under ROCE_RDMACM_PRIVATE, which the real libibverbs lacks).
# Usage: rdmacm_abi.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir}
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
fails=0
ours=$(find "$B" -path '*/roce/ibverbs/librdmacm.so.1' -print -quit)
real=$(ldconfig -p 2>/dev/null | awk '/librdmacm\.so\.1 .*x86-64/ { print $NF; exit }')
if [ -z "$ours" ]; then echo "rdmacm_abi: SKIP (no drop-in librdmacm.so.1: librdmacm-dev missing)"; exit 0; fi
if [ -z "$real" ] || ! command -v objdump >/dev/null; then
	echo "rdmacm_abi: SKIP (no system librdmacm.so.1 or no objdump)"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "name VERSION" of each defined dynamic symbol (version nodes aside)
exports() {
	objdump -T "$1" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && NF >= 6 {
		v = $(NF - 1); n = $NF; gsub(/[()]/, "", v); if (n != v) print n, v }' | sort -u
}
imports() {
	objdump -T "$1" | awk '/\*UND\*/ && $(NF - 1) ~ /RDMACM/ {
		v = $(NF - 1); gsub(/[()]/, "", v); print $NF, v }' | sort -u
}

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
for f in /usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy /usr/bin/rdma_server \
	 /usr/bin/rdma_client /usr/bin/ib_write_bw /usr/bin/rstream; do
	[ -e "$f" ] || continue
	imports "$f" >"$tmp/need"
	unmet=$(comm -23 "$tmp/need" "$tmp/ours")
	[ -z "$unmet" ] || fail "$(basename "$f") needs what ours lacks: $unmet"
done

if [ $fails = 0 ]; then
	echo "rdmacm_abi: ok ($(wc -l <"$tmp/ours") names)"
	exit 0
fi
exit 1
