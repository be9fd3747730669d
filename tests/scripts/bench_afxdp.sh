#!/usr/bin/env bash
# bench_afxdp, briefly: option errors are refused with a message, and a
# short run (0.3 s a measurement) prints the exact CSV header and a row
# for every (mode, size) it measures, each with frames received (> 0, and
# no more than were sent) through AF_XDP and through PACKET_MMAP. Generic
# XDP must give all three sizes; native XDP gives each size or says on
# stderr why not (veth refuses a program without frags support at MTU
# 9000; the bench then measures at a lower MTU what fits). After a blank
# line, the engines' table: its exact header, then WRITE 64 KB (Gbit/s)
# and WRITE 64 B (messages/s) rows at MTU 1500, each with both ports'
# figures above zero and their ratio consistent. Figures are not
# checked; the namespaces it made must be gone after. Needs root: skipped (77) without it, or when the bench itself
# skips (no AF_XDP, no BPF, libxdp/libbpf missing at build time).
set -euo pipefail
BUILD=$1
BENCH=$BUILD/bench/bench_afxdp

fail() { echo "bench_afxdp.sh: $*" >&2; exit 1; }

if [ ! -e "$BENCH" ]; then
  echo "bench_afxdp.sh: $BENCH not built (no libxdp/libbpf); skipped"
  exit 77
fi
[ -x "$BENCH" ] || fail "$BENCH not executable"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BENCH" --help | grep -q "usage: bench_afxdp" || fail "--help"
for bad in "--seconds 0" "--seconds x" "--seconds 61" "--bogus" "extra"; do
  # shellcheck disable=SC2086
  if "$BENCH" $bad >"$tmp/out" 2>"$tmp/err"; then
    fail "'$bad' accepted"
  fi
  [ -s "$tmp/err" ] || fail "'$bad' refused without a message"
done

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "bench_afxdp.sh: needs root and iproute2; skipped"
  exit 77
fi

ns_before=$(ip netns list | awk '/^bxd[ab][0-9]+/ {print $1}' | sort)
rc=0
timeout -k 5 120 "$BENCH" --seconds 0.3 --csv >"$tmp/csv" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ]; then
  echo "bench_afxdp.sh: $(tail -1 "$tmp/csv")"
  exit 77
fi
[ "$rc" -eq 0 ] || fail "exit $rc: $(tail -3 "$tmp/err")"

# the frame table ends at the first blank line; the engines' table follows
sed '/^$/,$d' "$tmp/csv" >"$tmp/frames"
sed '1,/^$/d' "$tmp/csv" >"$tmp/engines"

header="mode,mtu,frame_bytes,xdp_sent_per_s,xdp_rcvd_per_s,xdp_gbit_per_s,xdp_delivered,mmap_sent_per_s,mmap_rcvd_per_s,mmap_gbit_per_s,mmap_delivered,ratio,xdp_sent,xdp_received,mmap_sent,mmap_received"
[ "$(head -1 "$tmp/frames")" = "$header" ] || fail "CSV header: $(head -1 "$tmp/frames")"

for mode in generic native; do
  for size in 62 138 4154; do
    line=$(grep -E "^$mode,[0-9]+,$size," "$tmp/frames" || true)
    if [ -z "$line" ]; then
      [ "$mode" = native ] || fail "no $mode $size B row"
      grep -qE "native (XDP at MTU [0-9]+ refused|$size B: skipped)" "$tmp/err" ||
        fail "no native $size B row and no reason given"
      continue
    fi
    [ "$(grep -cE "^$mode,[0-9]+,$size," "$tmp/frames")" -eq 1 ] || fail "$mode $size B: several rows"
    IFS=, read -r _ _ _ _ _ _ _ _ _ _ _ _ xs xr ms mr <<<"$line"
    for v in "$xs" "$xr" "$ms" "$mr"; do
      [[ "$v" =~ ^[0-9]+$ ]] || fail "$mode $size B: not a count: '$v' in $line"
    done
    [ "$xr" -gt 0 ] || fail "$mode $size B: AF_XDP received nothing"
    [ "$mr" -gt 0 ] || fail "$mode $size B: PACKET_MMAP received nothing"
    [ "$xr" -le "$xs" ] || fail "$mode $size B: AF_XDP received $xr > sent $xs"
    [ "$mr" -le "$ms" ] || fail "$mode $size B: PACKET_MMAP received $mr > sent $ms"
  done
done
rows=$(($(wc -l <"$tmp/frames") - 1))
[ "$rows" -ge 3 ] && [ "$rows" -le 6 ] || fail "$rows rows"

eheader="section,xdp_mode,mtu,path_mtu,op,msg_bytes,unit,afxdp,afpacket,ratio"
[ "$(head -1 "$tmp/engines")" = "$eheader" ] || fail "engines header: $(head -1 "$tmp/engines")"
[ "$(wc -l <"$tmp/engines")" -eq 3 ] || fail "engines: $(cat "$tmp/engines")"
for want in "WRITE,65536,gbit_per_s" "WRITE,64,msgs_per_s"; do
  line=$(grep -E "^engines,(native|generic),1500,1024,$want," "$tmp/engines" || true)
  [ -n "$line" ] || fail "no engines $want row in: $(cat "$tmp/engines")"
  IFS=, read -r _ _ _ _ _ _ _ x p r <<<"$line"
  for v in "$x" "$p" "$r"; do
    [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "engines $want: not a figure: '$v'"
  done
  awk -v x="$x" -v p="$p" -v r="$r" 'BEGIN {
    exit !(x > 0 && p > 0 && (r - x / p) ^ 2 < (0.01 * x / p + 0.001) ^ 2) }' ||
    fail "engines $want: AF_XDP $x, AF_PACKET $p, ratio $r"
done
ns_after=$(ip netns list | awk '/^bxd[ab][0-9]+/ {print $1}' | sort)
left=$(comm -13 <(echo "$ns_before") <(echo "$ns_after"))
[ -z "$left" ] || fail "namespaces left behind: $left"
echo "bench_afxdp.sh: pass ($rows rows, engines: $(cut -d, -f6,8-10 "$tmp/engines" | tail -2 | tr '\n' ' '))"
