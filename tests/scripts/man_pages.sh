#!/usr/bin/env bash
# Every installed program has its man page (section 1) and the API its
# roce(7); man renders each one without a warning; and every option a
# tool's --help lists appears in its page, so a new option without its
# documentation fails here.
# usage: man_pages.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: man_pages.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: man_pages.sh BUILD_DIR SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$src/tests/scripts/lib/install.sh"
command -v man >/dev/null && command -v groff >/dev/null ||
  fail "man and groff are needed (scripts/install-deps: man-db)"
p=$tmp/prefix
install_to "$p"
mandir=$p/share/man

# render FILE (relative to $mandir, where a .so request resolves): the
# page as plain text in $tmp/page; any warning of man or groff fails
render() {
  local warn
  warn=$(cd "$mandir" && MANWIDTH=80 man -l -Tutf8 "$1" 2>&1 >/dev/null) || fail "man -l $1 failed"
  [ -z "$warn" ] || fail "man -l $1 warns: $warn"
  warn=$(cd "$mandir" && groff -ww -z -man -k "$1" 2>&1) || fail "groff $1 failed"
  [ -z "$warn" ] || fail "groff -ww $1 warns: $warn"
  (cd "$mandir" && MANWIDTH=80 MAN_KEEP_FORMATTING= man -l -Tascii "$1" 2>/dev/null | col -b) >"$tmp/page"
  [ -s "$tmp/page" ] || fail "man -l $1 rendered nothing"
}

pages=0
for prog in "$p"/bin/*; do
  name=$(basename "$prog")
  page=man1/$name.1
  [ -f "$mandir/$page" ] || fail "$name has no man page ($page)"
  render "$page"
  grep -q "^NAME" "$tmp/page" || fail "$page has no NAME section"
  grep -qE "(^|[ ,])$name([ ,]|$)" "$tmp/page" || fail "$page does not name $name"
  # the options of --help: -x and --long-name words at the start of a
  # line or after a space, comma or bracket
  "$prog" --help 2>&1 | grep -oE '(^|[[:space:],[])(--[a-z][a-zA-Z0-9_-]*|-[a-zA-Z])\b' |
    sed 's/^[[:space:],[]*//' | sort -u >"$tmp/opts"
  [ -s "$tmp/opts" ] || fail "$name --help lists no option"
  while read -r opt; do
    grep -qe "$opt\b" "$tmp/page" || fail "$page does not describe $opt (from $name --help)"
  done <"$tmp/opts"
  pages=$((pages + 1))
done
render man7/roce.7
grep -q 'roce::roce' "$tmp/page" || fail "roce(7) does not show the CMake target"
# every page in the tree is installed and rendered above (no orphan)
for f in "$src"/man/*.1; do
  [ -x "$p/bin/$(basename "$f" .1)" ] || fail "man/$(basename "$f") documents no installed program"
done
echo "ok   $pages man pages of section 1 and roce(7) render cleanly and cover every --help option"
