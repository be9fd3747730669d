#!/usr/bin/env bash
# The expected CM fields under tests/vectors/expected/cm/ are Wireshark's
# own dissection of the CM MADs of the golden captures (cm_fields.py), so
# test_cm_msg compares our codec with tshark, not with an old copy.
set -euo pipefail
src=$2
vec=$src/tests/vectors
command -v tshark >/dev/null || { echo "tshark not installed (scripts/install-deps)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
for exp in "$vec"/expected/cm/*.tsv; do
  name=$(basename "$exp" .tsv)
  python3 "$vec/cm_fields.py" "$vec/captures/$name.pcap" > "$tmp/$name.tsv"
  if ! diff -u "$exp" "$tmp/$name.tsv" > "$tmp/diff"; then
    echo "FAIL: tests/vectors/expected/cm/$name.tsv is not what tshark says now:"; head -20 "$tmp/diff"; exit 1
  fi
  n=$((n + 1))
done
[ "$n" -ge 1 ] || { echo "FAIL: no expected CM fields"; exit 1; }
echo "ok: the CM fields of $n captures are tshark's"
