#!/usr/bin/env bash
# The engine's and the CM's files form layers: no circle of calls (read
# from the object files) or includes among the files of src/engine or
# src/cm but for the owner edges their headers name, and nothing in src/
# outside src/perf includes perf/ (scripts/layers says how it reads them).
# usage: layers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: layers.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: layers.sh BUILD_DIR SOURCE_DIR}
command -v nm >/dev/null || { echo "layers: nm (binutils) is needed" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! python3 "$src/scripts/layers" --build "$build" --check engine cm >"$out" 2>&1; then
  cat "$out" >&2
  echo "layers: a circle among the files above (or a perf/ include): break it, or name the owner edge and why" >&2
  exit 1
fi
# the check must see the engine's stages and their calls, or it proves nothing
grep -q '^src/engine: .* units, [1-9][0-9]* edges' "$out" || { cat "$out" >&2; echo "layers: no engine edges read" >&2; exit 1; }
grep -q '^src/cm: .* units, [1-9][0-9]* edges' "$out" || { cat "$out" >&2; echo "layers: no CM edges read" >&2; exit 1; }
echo "layers: src/engine and src/cm form layers"
