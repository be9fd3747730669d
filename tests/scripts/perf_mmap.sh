#!/usr/bin/env bash
# roce-perf --mmap / --mmap-offset: the server's buffer lives in a file.
# Runs the in-memory self-test with the server's buffer in a file and then
# reads the file from outside: what the client wrote (write_bw) or sent
# (send_bw) is in the file at the offset, in perftest's layout (the QPs'
# send regions, then the regions they advertise / receive into), zeros
# where nothing came, and every byte outside the buffer as it was. Then the
# errors: a missing file, an offset off a page, a file too small, a bad
# number (statuses as perftest: 1 at run time; 2 for a bad command line).
# Usage: perf_mmap.sh BUILD_DIR SOURCE_DIR
set -u
B=${1:?build dir}
PERF=$B/tools/roce-perf
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fails=0
# shellcheck source=lib/tool_checks.sh
. "$(dirname "$0")/lib/tool_checks.sh"

PAGE=$(getconf PAGESIZE)
# the cache line as roce-perf finds it (perftest's get_cache_line_size())
LINE=$(getconf LEVEL1_DCACHE_LINESIZE 2>/dev/null)
[ "${LINE:-0}" = 0 ] && LINE=$(cat /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size 2>/dev/null)
[ "${LINE:-0}" -gt 0 ] 2>/dev/null || LINE=64
F=$TMP/buf.bin
SIZE=$((1 << 20))

# a file of SIZE bytes of 0xEE: what the tool must not touch stays so
fresh() {
	head -c $SIZE /dev/zero | tr '\0' '\356' >"$F"
}

# verify OFFSET QPS MSG SLOTS KIND: the file as the server left it (python:
# perf_pat_bw() of src/perf/perf_check.c; perftest's layout by hand: QP q
# advertises (n + q) * BUFF, receives at (n + q) * INC)
verify() {
	python3 - "$F" "$SIZE" "$1" "$2" "$3" "$4" "$5" "$PAGE" "$LINE" <<'EOF'
import sys
path, size, off, nqp, msg, slots, kind, page, line = sys.argv[1:]
size, off, nqp, msg, slots, page, line = map(int, (size, off, nqp, msg, slots, page, line))
data = open(path, 'rb').read()
def pat(q, o):
    return (o ^ (o >> 8) * 3 ^ (o >> 16) * 5 ^ q * 0x3d ^ 0xa5) & 0xff
def inc(n):                      # INC(): a cache-line multiple, at least one
    return (n + line - 1) // line * line if n > line else line
buff = max(msg, page)            # BUFF_SIZE(size, cycle buffer = the page)
length = 2 * nqp * inc(buff)     # ctx->buff_size
def fail(why):
    sys.exit("file check: " + why)
if len(data) != size:
    fail("the file is %d bytes, not %d" % (len(data), size))
if data[:off] != b'\xee' * off:
    fail("bytes before the offset changed")
if data[off + length:] != b'\xee' * (size - off - length):
    fail("bytes after the buffer changed")
if data[off:off + nqp * buff] != bytes(nqp * buff):
    fail("the send regions are not zero")
for q in range(nqp):
    base = off + (nqp + q) * (buff if kind == 'write' else inc(buff))
    region = data[base:base + buff]
    used = 0
    for s in range(slots):
        o = s * inc(msg)
        want = bytes(pat(q, o + i) for i in range(msg))
        if region[o:o + msg] != want:
            fail("QP %d slot %d at %d: not the client's data (%s)" % (q, s, base + o, kind))
        used = o + msg
    if kind == 'write' and region[used:] != bytes(buff - used):
        fail("QP %d: bytes past the last slot are not zero" % q)
print("file check: %d QPs, %d slots of %d bytes at offset %d: ok" % (nqp, slots, msg, off))
EOF
}

# write_bw, 2 QPs, 4 KiB messages (one slot each), at an offset of 2 pages
fresh
expect "write_bw --mmap" 0 "allocated mmap buffer of size $((4 * PAGE > 16384 ? 4 * PAGE : 16384)) at" \
	timeout -k 5 120 "$PERF" write_bw --memlink-selftest --mmap="$F" --mmap-offset=$((2 * PAGE)) \
	-q 2 -s 4096 -n 300 --check --timeout 20
expect "write_bw: the data in the file" 0 "file check: .*: ok" verify $((2 * PAGE)) 2 4096 1 write

# send_bw: 1000-byte messages cycle through the slots of the receive regions
slots=$((PAGE / 1024))
fresh
expect "send_bw --mmap" 0 "content check: passed" \
	timeout -k 5 120 "$PERF" send_bw --memlink-selftest --mmap="$F" -q 2 -s 1000 -n 300 \
	--check --timeout 20
expect "send_bw: the data in the file" 0 "file check: .*: ok" verify 0 2 1000 $slots send

# a size off the page and the line: the advertised regions at (2 + q) *
# 4097, the receive regions at (2 + q) * INC(4097)
fresh
expect "write_bw -s 4097 --mmap" 0 "content check: passed" \
	timeout -k 5 120 "$PERF" write_bw --memlink-selftest --mmap="$F" -q 2 -s 4097 -n 50 --check --timeout 20
expect "write_bw -s 4097: the data in the file" 0 "file check: .*: ok" verify 0 2 4097 1 write
fresh
expect "send_bw -s 4097 --mmap" 0 "content check: passed" \
	timeout -k 5 120 "$PERF" send_bw --memlink-selftest --mmap="$F" -q 2 -s 4097 -n 50 --check --timeout 20
expect "send_bw -s 4097: the data in the file" 0 "file check: .*: ok" verify 0 2 4097 1 send

# --mmap-offset alone is ignored, as perftest ignores it
expect "--mmap-offset alone" 0 "content check: passed" \
	timeout -k 5 120 "$PERF" write_bw --memlink-selftest --mmap-offset=4096 -n 20 --check --timeout 20

# the errors
expect "missing file" 1 "Unable to open '$TMP/none': No such file or directory" \
	timeout -k 5 60 "$PERF" write_bw --memlink-selftest --mmap="$TMP/none" -n 20 --timeout 10
expect "offset off a page" 1 "Unable to mmap '$F': Invalid argument: the offset 100 is not a multiple of the page size" \
	timeout -k 5 60 "$PERF" write_bw --memlink-selftest --mmap="$F" --mmap-offset=100 -n 20 --timeout 10
head -c 4096 /dev/zero >"$TMP/small"
expect "file too small" 1 "'$TMP/small' is too small: the buffer needs [0-9]+ bytes from offset 0, the file has 4096" \
	timeout -k 5 60 "$PERF" write_bw --memlink-selftest --mmap="$TMP/small" -n 20 --timeout 10
expect "offset past the end" 1 "is too small: the buffer needs [0-9]+ bytes from offset $((SIZE)), the file has 0" \
	timeout -k 5 60 "$PERF" write_bw --memlink-selftest --mmap="$F" --mmap-offset=$SIZE -n 20 --timeout 10
expect "bad offset" 2 "mmap offset 'abc'" "$PERF" write_bw --mmap="$F" --mmap-offset=abc
expect "negative offset" 2 "mmap offset '-4096'" "$PERF" write_bw --mmap="$F" --mmap-offset=-4096
expect "no file name" 2 "--mmap ''" "$PERF" write_bw --mmap= --memlink-selftest
expect "--help" 0 "--mmap=FILE" "$PERF" --help

echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
