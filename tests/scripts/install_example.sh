#!/usr/bin/env bash
# examples/install/write.c (two engines on the in-memory link, one WRITE,
# the data checked) built against a temporary install three ways, each
# run: by `pkg-config --cflags --libs roce` alone (libroce.so), and by a
# CMake project with find_package(roce): roce::roce and roce::roce_static.
# Release builds only (77 otherwise: a sanitizer's libroce.so needs its
# runtime in the program).
# usage: install_example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_example.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_example.sh BUILD_DIR SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$src/tests/scripts/lib/install.sh"
if instrumented; then
  echo "skip: an instrumented build; the example links against release builds"
  exit 77
fi
p=$tmp/prefix
install_to "$p"
example=$src/examples/install

# 1. pkg-config alone: the installed roce.pc, wherever the prefix is
export PKG_CONFIG_PATH=$p/lib/pkgconfig
[ "$(pkg-config --modversion roce)" = "$version" ] || fail "pkg-config finds roce $(pkg-config --modversion roce), not $version"
flags=$(pkg-config --cflags --libs roce) || fail "pkg-config --cflags --libs roce"
case "$flags" in *"$p"*) ;; *) fail "pkg-config's flags do not point into the prefix: $flags" ;; esac
# shellcheck disable=SC2086
"$cc_build" -std=c11 -pedantic -Wall -Wextra -Werror -o "$tmp/write-pc" "$example/write.c" $flags ||
  fail "write.c does not build with pkg-config's flags"
readelf -d "$tmp/write-pc" | grep -q "NEEDED.*\[libroce.so.$soversion\]" || fail "write-pc does not need libroce.so.$soversion"
LD_LIBRARY_PATH=$p/lib "$tmp/write-pc" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "write-pc failed"; }
grep -q 'written from B into A and checked' "$tmp/out" || fail "write-pc: $(cat "$tmp/out")"
echo "ok   pkg-config: $(cat "$tmp/out")"

# 2. CMake: find_package(roce) from CMAKE_PREFIX_PATH, shared and static
unset PKG_CONFIG_PATH
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$example" -B "$tmp/cm" "${gen[@]}" -DCMAKE_C_COMPILER="$cc_build" \
  -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$tmp/cm.log" 2>&1 ||
  { cat "$tmp/cm.log" >&2; fail "find_package(roce) project does not configure"; }
grep -q "^roce_DIR:PATH=$p/lib/cmake/roce$" "$tmp/cm/CMakeCache.txt" || fail "find_package found roce elsewhere: $(grep '^roce_DIR' "$tmp/cm/CMakeCache.txt")"
cmake --build "$tmp/cm" >"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log" >&2; fail "find_package(roce) project does not build"; }
readelf -d "$tmp/cm/write" | grep -q "NEEDED.*\[libroce.so.$soversion\]" || fail "write does not need libroce.so.$soversion"
if readelf -d "$tmp/cm/write-static" | grep -q 'NEEDED.*libroce'; then
  fail "write-static needs libroce.so: not linked against libroce.a"
fi
for exe in write write-static; do
  "$tmp/cm/$exe" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "$exe (find_package) failed"; }
  grep -q 'written from B into A and checked' "$tmp/out" || fail "$exe: $(cat "$tmp/out")"
done
echo "ok   find_package(roce): roce::roce and roce::roce_static built and ran"

# 3. the compatibility policy (docs/install.md): an older series is
# refused (0.x: another MINOR; from 1.0: another MAJOR)
if [ "$major" = 0 ]; then
  [ "$minor" -gt 0 ] || { echo "ok   (version $version: no older series to refuse)"; exit 0; }
  older=0.$((minor - 1))
else
  older=$((major - 1)).0
fi
mkdir -p "$tmp/v"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(v C)\nfind_package(roce %s REQUIRED)\n' \
  "$older" >"$tmp/v/CMakeLists.txt"
if cmake -S "$tmp/v" -B "$tmp/v/b" -DCMAKE_PREFIX_PATH="$p" >"$tmp/v.log" 2>&1; then
  fail "find_package(roce $older) accepted version $version"
fi
grep -q 'not compatible\|version' "$tmp/v.log" || { cat "$tmp/v.log" >&2; fail "find_package(roce $older) failed for another reason"; }
echo "ok   find_package(roce $older) refuses $version"
