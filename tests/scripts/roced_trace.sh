#!/usr/bin/env bash
# roced --trace FILE: every register access rocectl makes over the socket
# is a wr/rd record (address, data, AXI response) in docs/trace.md's
# format, the trace starts with its magic line, a refused write records
# SLVERR and an unmapped read DECERR; the file is complete once roced
# stops (SIGINT); a trace that cannot be written is refused at start; the
# DDR debug port's accesses (rocectl ddr) are memwr/memrd records.
# Usage: roced_trace.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
ctl=$build/tools/rocectl
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/roced.sh"

"$build/tools/roced" --help | grep -q -- "--trace FILE" || fail "--help has no --trace"
set +e
"$build/tools/roced" --quiet --socket "$tmp/x.sock" --trace /nonexistent/t.trace 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "unwritable trace: exit $rc"
grep -q "cannot write the trace /nonexistent/t.trace" "$tmp/err" || fail "message: $(cat "$tmp/err")"

sock=$tmp/roced.sock
roced_start "$build" "$sock" --trace "$tmp/t.trace"
ctl() { "$ctl" --socket "$sock" "$@"; }
ctl write SCRATCH 0x12345678
ctl read SCRATCH >/dev/null
ctl write STATUS 1 2>/dev/null && fail "a read-only register took a write"
ctl read 0x3f0 2>/dev/null && fail "an unmapped read succeeded"
ctl ddr write 0x100 deadbeef01020304 >/dev/null
ctl ddr read 0x104 4 >/dev/null
kill -INT "$pid"
wait "$pid" || fail "roced exited with $? on SIGINT"
pid=

python3 - "$tmp/t.trace" <<'PY' || fail "trace: $(head -8 "$tmp/t.trace")"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("#"), lines[0]          # the magic line
recs = [l.split() for l in lines[1:]]
def has(kind, **f):
    return any(r[2] == kind and all(("%s=%s" % kv) in r for kv in f.items()) for r in recs)
assert has("wr", addr="38", data="12345678", resp="0"), recs[:6]
assert has("rd", addr="38", data="12345678", resp="0")
assert has("wr", addr="24", resp="2")                # STATUS is read-only: SLVERR
assert has("rd", addr="3f0", resp="3")               # nothing there: DECERR
# the DDR debug port: a word a record, the bytes as DDR holds them
assert ["memwr", "addr=100", "len=4", "deadbeef"] in [r[2:] for r in recs], recs
assert ["memwr", "addr=104", "len=4", "01020304"] in [r[2:] for r in recs], recs
assert ["memrd", "addr=104", "len=4", "01020304"] in [r[2:] for r in recs], recs
times = [int(r[0]) for r in recs]
assert times == sorted(times), "times go back"
assert all(r[1] == "0" for r in recs)               # NIC 0
PY
echo "roced_trace: ok"
