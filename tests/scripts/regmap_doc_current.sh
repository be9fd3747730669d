#!/usr/bin/env bash
# docs/regmap.md must be exactly what roce-regmap-doc prints from the
# register map table (src/regs/regmap.c).
# usage: regmap_doc_current.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: regmap_doc_current.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: regmap_doc_current.sh BUILD_DIR SOURCE_DIR}

tool=
for t in "$build/tools/roce-regmap-doc" "$build/roce-regmap-doc"; do
  if [ -x "$t" ]; then tool=$t; break; fi
done
if [ -z "$tool" ]; then
  echo "regmap_doc_current: roce-regmap-doc not built in $build" >&2
  exit 1
fi
doc="$src/docs/regmap.md"
if [ ! -f "$doc" ]; then
  echo "regmap_doc_current: $doc is missing;" \
       "run \`cmake --build build --target regmap-doc\` and commit it" >&2
  exit 1
fi

fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$tool" -o "$fresh"
if ! diff -u "$doc" "$fresh" >"$fresh.diff"; then
  echo "regmap_doc_current: docs/regmap.md is stale (the register map changed)." >&2
  echo "Run \`cmake --build build --target regmap-doc\` and commit docs/regmap.md." >&2
  head -40 "$fresh.diff" >&2
  rm -f "$fresh.diff"
  exit 1
fi
rm -f "$fresh.diff"
# the tool's own checks: help works, bad arguments are refused
"$tool" --help | grep -q '^usage: roce-regmap-doc'
if "$tool" --bogus 2>/dev/null; then
  echo "regmap_doc_current: roce-regmap-doc accepted a bad argument" >&2
  exit 1
fi
echo "docs/regmap.md is current"
