# Sourced by the install tests (install_tree.sh, install_example.sh,
# man_pages.sh, deb_package.sh): $build and $src set by the caller; $tmp a
# fresh directory removed on exit; the build's settings. The caller
# defines fail MSG (a FAIL line, exit 1), which these helpers call too.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cache VAR: the value of VAR in the build's CMakeCache.txt
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }

cc_build=$(cache CMAKE_C_COMPILER)
version=$(cache CMAKE_PROJECT_VERSION)
# SONAME: MAJOR.MINOR while MAJOR is 0, then MAJOR (cmake/library.cmake)
major=${version%%.*}
minor=${version#*.}; minor=${minor%%.*}
if [ "$major" = 0 ]; then soversion=$major.$minor; else soversion=$major; fi

# A sanitizer or fuzzing build's libroce.so needs its runtime in the
# program: the tests that link programs against it run on release builds.
instrumented() {
  [ "$(cache ROCE_SANITIZE)" = ON ] || [ "$(cache ROCE_TSAN)" = ON ] || [ "$(cache ROCE_FUZZ)" = ON ]
}

# install_to PREFIX: cmake --install of the build into PREFIX
install_to() {
  cmake --install "$build" --prefix "$1" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "cmake --install into $1"; }
}
