#!/usr/bin/env bash
# bench/programs --quick: Debian's programs under roce-run beside our
# tools over a veth pair. Exit status 0, the table's header as it is, every
# row with a figure > 0 for Debian's program and for ours, the same rows
# in --out's JSON lines, and the script's namespaces gone afterwards. The
# figures are not held to the targets: that is the benchmark's job, and a
# shared machine's figures are noise. Skipped (77) without root, ip,
# perftest or ibverbs-utils (the script says which is missing), and with
# a sanitized drop-in: a benchmark of it measures the sanitizer, and
# perftest's own leaks end its programs under LeakSanitizer
# (verbs_perftest.sh runs them there, without it).
# Usage: bench_programs.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir} S=${2:?source dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

lib=$(find "$B" -path '*/roce/ibverbs/libibverbs.so.1' -print -quit)
if [ -n "$lib" ] && [[ "$(nm -D "$lib" 2>/dev/null)" == *" U __"[at]"san_init"* ]]; then
	echo "bench_programs: SKIP (a sanitized drop-in: nothing to measure)"; exit 77
fi

"$S/bench/programs" --build "$B" --quick --out "$TMP/rows.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 77 ]; then
	echo "bench_programs: SKIP"; sed 's/^/  /' "$TMP/err"; exit 77
fi
cat "$TMP/out"
[ $rc = 0 ] || { fail "bench/programs exit status $rc"; sed 's/^/  stderr| /' "$TMP/err"; }

header='row                 unit       Debian      ours   ratio   target verdict CPU us/m D CPU us/m o  busy D s+c  busy o s+c p99 us s/c'
[ "$(grep -c '^row ' "$TMP/out")" = 1 ] && [ "$(grep '^row ' "$TMP/out")" = "$header" ] ||
	fail "the header is not: $header"

# every row: its name, its unit, then Debian's figure and ours, both > 0
positive() { awk -v v="$1" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 > 0) }'; }
for r in "send_lat typical|us" "send_lat -e typical|us" "write_bw 64 B|M msg/s" \
	 "write_bw 64 KB|MB/s" "rc_pingpong|us/iter"; do
	name=${r%|*} unit=${r#*|}
	line=$(grep -E "^$name +$unit " "$TMP/out")
	if [ -z "$line" ]; then
		fail "no row '$name' ($unit)"; continue
	fi
	read -r deb ours _ <<<"${line#"$name"*"$unit"}"
	positive "$deb" && positive "$ours" || fail "row '$name': figures '$deb' '$ours'"
	grep -qF "\"row\": \"$name\"" "$TMP/rows.json" || fail "row '$name' not in --out"
done
[ "$(wc -l <"$TMP/rows.json")" = 5 ] || fail "--out: not 5 JSON lines"

ns=$(sed -n 's/^namespaces: \([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$TMP/out")
[ -n "$ns" ] || fail "no namespaces line"
for n in $ns; do
	ip netns list | grep -qw -- "$n" && fail "namespace $n left behind"
done

echo "bench_programs: $fails failed"
[ $fails = 0 ]
