#!/usr/bin/env bash
# cmake --install into a temporary prefix puts every file where
# docs/install.md says; each installed header compiles on its own with
# -std=c11 -pedantic -Wall -Wextra -Werror against the installed tree;
# libroce.so carries its SONAME and exports only names of those headers.
# usage: install_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_tree.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_tree.sh BUILD_DIR SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$src/tests/scripts/lib/install.sh"
p=$tmp/prefix
install_to "$p"

# the libraries: libroce.so -> .so.SOVERSION -> .so.VERSION, and libroce.a
lib=$p/lib
[ -f "$lib/libroce.so.$version" ] || fail "no $lib/libroce.so.$version"
[ "$(readlink "$lib/libroce.so")" = "libroce.so.$soversion" ] || fail "libroce.so is not a link to libroce.so.$soversion"
[ "$(readlink "$lib/libroce.so.$soversion")" = "libroce.so.$version" ] || fail "libroce.so.$soversion is not a link to libroce.so.$version"
readelf -d "$lib/libroce.so.$version" | grep -q "Library soname: \[libroce.so.$soversion\]" ||
  fail "SONAME of libroce.so is not libroce.so.$soversion"
[ -f "$lib/libroce.a" ] || fail "no libroce.a"
for f in pkgconfig/roce.pc cmake/roce/roceConfig.cmake cmake/roce/roceConfigVersion.cmake \
         cmake/roce/roceTargets.cmake; do
  [ -f "$lib/$f" ] || fail "no $lib/$f"
done

# the headers: exactly include/roce of the source tree
diff -r "$src/include/roce" "$p/include/roce" >"$tmp/diff" || { cat "$tmp/diff" >&2; fail "installed headers differ from include/roce"; }

# each one alone, strict C11, no _GNU_SOURCE, only the installed tree
n=0
while read -r h; do
  printf '#include <%s>\ntypedef int roce_header_check;\n' "$h" >"$tmp/one.c"
  "$cc_build" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$p/include" "$tmp/one.c" \
    >"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log" >&2; fail "$h does not compile on its own"; }
  n=$((n + 1))
done < <(cd "$p/include" && find roce -name '*.h' | sort)
[ "$n" -ge 30 ] || fail "only $n headers installed"
echo "ok   $n installed headers compile on their own"

# the exports: every defined dynamic symbol is a name the headers declare
# (a sanitizer's own symbols aside), and there are hundreds
(cd "$p/include" && find roce -name '*.h' | sort | sed 's/.*/#include <&>/') >"$tmp/all.c"
"$cc_build" -std=c11 -E -P -I"$p/include" "$tmp/all.c" | grep -oE '\broce_[A-Za-z0-9_]+' | sort -u >"$tmp/names"
nm -D --defined-only "$lib/libroce.so" | awk '{print $NF}' | grep -vE '^(__|_init$|_fini$|_edata$|_end$|__bss_start$)' \
  | sort -u >"$tmp/exported"
comm -23 "$tmp/exported" "$tmp/names" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
  head -20 "$tmp/extra" >&2
  fail "libroce.so exports $(wc -l <"$tmp/extra") names no installed header declares"
fi
count=$(wc -l <"$tmp/exported")
[ "$count" -ge 200 ] || fail "libroce.so exports only $count symbols"
# and the internals stay inside: the static library defines many more
internal=$(nm --defined-only "$lib/libroce.a" 2>/dev/null | awk '$2 == "T" {print $3}' | sort -u | comm -23 - "$tmp/names" | wc -l)
[ "$internal" -ge 100 ] || fail "only $internal internal functions in libroce.a: the check above proves little"
echo "ok   libroce.so.$soversion exports $count names of the headers; $internal internal functions hidden"

# the tools, and the two names of roce-pingpong
for t in "$src"/tools/*.c; do
  name=$(basename "$t" .c)
  [ -x "$p/bin/$name" ] || fail "tool $name not installed"
done
for l in roce-uc-pingpong roce-ud-pingpong; do
  [ "$(readlink "$p/bin/$l")" = roce-pingpong ] || fail "$l is not a link to roce-pingpong"
done
echo "ok   $(ls "$p/bin" | wc -l) programs in bin/"
