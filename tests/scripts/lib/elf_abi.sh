# Sourced by the ABI script tests (verbs_abi.sh, rdmacm_abi.sh): a shared
# library's dynamic symbols as objdump lists them, and where to find the
# drop-in and the system's library of a soname. Needs objdump.

# abi_exports FILE: "name VERSION" of each defined dynamic symbol, the
# version nodes' own symbols left out; a version in parentheses (a
# hidden, non-default one) marked "(hidden)"
abi_exports() {
	objdump -T "$1" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && NF >= 6 {
		v = $(NF - 1); n = $NF
		if (v ~ /^\(/) { gsub(/[()]/, "", v); v = v " (hidden)" }
		if (n != v) print n, v }' | sort -u
}

# abi_imports FILE NODE_RE: "name VERSION" of each undefined reference
# whose version matches NODE_RE (IBVERBS, RDMACM)
abi_imports() {
	objdump -T "$1" | awk -v re="$2" '/\*UND\*/ && $(NF - 1) ~ re {
		v = $(NF - 1); gsub(/[()]/, "", v); print $NF, v }' | sort -u
}

# abi_libs BUILD_DIR SONAME: sets ours (the drop-in under BUILD_DIR's
# roce/ibverbs) and real (the system's x86-64 library), either empty
abi_libs() {
	ours=$(find "$1" -path "*/roce/ibverbs/$2" -print -quit)
	real=$(ldconfig -p 2>/dev/null | awk -v so="$2" '$1 == so && /x86-64/ { print $NF; exit }')
}

# abi_start TEST: with ours found, the frame of an ABI test: fail() and
# $fails, a scratch $tmp removed at exit; exits 0 with a SKIP line where
# the system has no such library or no objdump
abi_start() {
	fails=0
	if [ -z "$real" ] || ! command -v objdump >/dev/null; then
		echo "$1: SKIP (no system library or no objdump)"; exit 0
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# abi_users NODE_RE FILE...: every reference of each FILE (a program or a
# library) to a NODE_RE version found among ours ($tmp/ours)
abi_users() {
	local re=$1 f unmet
	shift
	for f in "$@"; do
		[ -e "$f" ] || continue
		abi_imports "$f" "$re" >"$tmp/need"
		unmet=$(comm -23 "$tmp/need" "$tmp/ours")
		[ -z "$unmet" ] || fail "$(basename "$f") needs what ours lacks: $unmet"
	done
}

# abi_end TEST: the verdict line and status
abi_end() {
	if [ "$fails" = 0 ]; then
		echo "$1: ok ($(wc -l <"$tmp/ours") names)"
		exit 0
	fi
	exit 1
}
