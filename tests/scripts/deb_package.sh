#!/usr/bin/env bash
# cpack -G DEB builds the Debian package: its Depends name the shared
# libraries (dpkg-shlibdeps) and the -dev packages roce.pc requires; it
# holds the libraries, headers, roce.pc, the CMake files, the tools and
# the man pages under /usr; apt resolves it on this system (a simulated
# install); and the unpacked tree builds and runs examples/install/write.c.
# Release builds only (77 otherwise).
# usage: deb_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: deb_package.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: deb_package.sh BUILD_DIR SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$src/tests/scripts/lib/install.sh"
if instrumented; then
  echo "skip: an instrumented build is not packaged"
  exit 77
fi
for t in cpack dpkg-deb dpkg-shlibdeps file; do
  command -v "$t" >/dev/null || fail "$t is needed (scripts/install-deps)"
done

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/out/*.deb)
[ "$(echo "$deb" | wc -l)" = 1 ] || fail "cpack made $(echo "$deb" | wc -l) packages"
case "$(basename "$deb")" in roce-nic_"$version"_*.deb) ;; *) fail "package named $(basename "$deb")" ;; esac

depends=$(dpkg-deb -f "$deb" Depends)
for d in libc6 libisal2 'libpcap0\.8' libisal-dev libpcap-dev; do
  echo "$depends" | grep -qE "(^|, )$d( |,|$)" || fail "Depends lacks $d: $depends"
done
dpkg-deb -I "$deb" shlibs | grep -q "^libroce $soversion roce-nic" || fail "no shlibs entry for libroce $soversion"
echo "ok   $(basename "$deb"): Depends: $depends"

x=$tmp/x
dpkg -x "$deb" "$x"
for f in usr/lib/libroce.so "usr/lib/libroce.so.$soversion" "usr/lib/libroce.so.$version" usr/lib/libroce.a \
         usr/include/roce/verbs.h usr/include/roce/wire/bth.h usr/lib/pkgconfig/roce.pc \
         usr/lib/cmake/roce/roceConfig.cmake usr/lib/cmake/roce/roceConfigVersion.cmake \
         usr/lib/cmake/roce/roceTargets.cmake usr/bin/roce-perf usr/bin/rocectl \
         usr/share/man/man1/roce-perf.1 usr/share/man/man1/roced.1 usr/share/man/man7/roce.7; do
  [ -e "$x/$f" ] || fail "the package lacks /$f"
done
for t in "$src"/tools/*.c; do
  name=$(basename "$t" .c)
  [ -x "$x/usr/bin/$name" ] && [ -f "$x/usr/share/man/man1/$name.1" ] || fail "the package lacks $name or its man page"
done
echo "ok   the package holds the libraries, headers, roce.pc, CMake files, $(ls "$x/usr/bin" | wc -l) programs and $(find "$x/usr/share/man" -type f | wc -l) man pages"

# apt would install it here, every dependency resolved (nothing installed)
if command -v apt-get >/dev/null; then
  apt-get install -s "$deb" >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get install -s refuses the package"; }
  grep -q "^Inst roce-nic " "$tmp/apt.log" || { cat "$tmp/apt.log" >&2; fail "apt-get install -s does not install roce-nic"; }
  echo "ok   apt-get install -s resolves its dependencies"
fi

# the unpacked /usr is a working prefix (roce.pc is relocatable)
export PKG_CONFIG_PATH=$x/usr/lib/pkgconfig
# shellcheck disable=SC2046
"$cc_build" -std=c11 -Wall -Wextra -Werror -o "$tmp/write" "$src/examples/install/write.c" \
  $(pkg-config --cflags --libs roce) || fail "write.c does not build against the unpacked package"
LD_LIBRARY_PATH=$x/usr/lib "$tmp/write" >"$tmp/run" 2>&1 || { cat "$tmp/run" >&2; fail "write against the package failed"; }
echo "ok   write.c against the unpacked package: $(cat "$tmp/run")"
