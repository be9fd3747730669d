#!/usr/bin/env bash
# The expected fields under tests/vectors/expected/ are Wireshark's own
# dissection of the golden captures, and roce-pcap --tsv agrees with it on
# every packet.
set -euo pipefail
build=$1 src=$2
vec=$src/tests/vectors
tool=$build/tools/roce-pcap
command -v tshark >/dev/null || { echo "tshark not installed (scripts/install-deps)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
for cap in "$vec"/captures/*.pcap; do
  name=$(basename "$cap" .pcap)
  python3 "$vec/tshark_fields.py" "$cap" > "$tmp/$name.tshark"
  if ! diff -u "$vec/expected/$name.tsv" "$tmp/$name.tshark" > "$tmp/diff"; then
    echo "FAIL: tests/vectors/expected/$name.tsv is not what tshark says now:"; head -20 "$tmp/diff"; exit 1
  fi
  "$tool" --tsv "$cap" | cut -f1-17 > "$tmp/$name.ours"
  if ! diff -u "$tmp/$name.tshark" "$tmp/$name.ours" > "$tmp/diff"; then
    echo "FAIL: roce-pcap disagrees with tshark on $name:"; head -20 "$tmp/diff"; exit 1
  fi
  n=$((n + $(wc -l < "$tmp/$name.ours")))
done
[ "$n" -gt 2000 ] || { echo "FAIL: only $n packets compared"; exit 1; }
echo "ok: $n packets agree with tshark"
