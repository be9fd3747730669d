#!/usr/bin/env bash
# The transaction trace never holds a key: a staged roce-demo run's trace
# has no 8-byte run of its key (the hex of every pair of the key's 4-byte
# words, in the order the key words are written, in either byte order)
# and its key words are traced as 0, with a key record naming the slot;
# roce-replay refuses a trace that loads a slot without --key-file, in
# one line naming the slot. A staged sim trace (sim_record --key-file:
# B's MR through XTS) replays with the key, and not with another one.
set -euo pipefail
build=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
demo=$build/tools/roce-demo rec=$build/tests/helpers/sim_record replay=$build/tools/roce-replay
cd "$tmp"
head -c 64 /dev/urandom > K
# expect RC CMD...: CMD exits RC, its output in ./out
expect() {
  local rc=0
  "${@:2}" > out 2>&1 || rc=$?
  [ $rc -eq "$1" ] || fail "${*:2} exited $rc, want $1: $(head -c 600 out)"
}

timeout -k 5 120 "$demo" --quick --iters 5 --size 16K --stage xts --key-file K --trace T > o \
  || fail "staged demo run: $(tail -3 o)"
# every 8-byte run of the key, as memory holds it and as 32-bit words
# (the form a register write's data takes) in the trace's lowercase hex
python3 - K T <<'PY'
import sys
key, trace = open(sys.argv[1], 'rb').read(), open(sys.argv[2]).read().lower()
runs = set()
for i in range(0, 64 - 7, 4):
    runs.add(key[i:i + 8].hex())
    w = [int.from_bytes(key[j:j + 4], 'little') for j in (i, i + 4)]
    runs.add('%x%x' % (w[0], w[1]))
    runs.add('%08x%08x' % (w[0], w[1]))
for r in runs:
    if r in trace:
        sys.exit("the key's run %s is in the trace" % r)
for j in range(0, 64, 4):
    w = '%x' % int.from_bytes(key[j:j + 4], 'little')
    if ' data=%s ' % w in trace and int(w, 16) != 0:
        sys.exit("key word %d is a register write's data in the trace" % (j // 4))
PY
grep -q '^[0-9]* 0 key slot=0 op=load$' T || fail "no key record for slot 0"
[ "$(grep -c ' 0 wr addr=3[4-7][0-9a-f] data=0 ' T)" -eq 16 ] || fail "the 16 key words not traced as 0"
grep -B1 ' 0 wr addr=304 data=1 ' T | head -1 | grep -q ' key slot=0 op=load' \
  || fail "the key record is not just before the LOAD command"
expect 2 "$replay" T
[ "$(wc -l < out)" -eq 1 ] || fail "not one line: $(cat out)"
grep -q "T:[0-9]*: key slot 0 is loaded here and a trace never holds a key: give its key with --key-file FILE" out \
  || fail "message: $(cat out)"

# a staged sim trace: replayed with the key, not with another one
"$rec" a b --key-file K || fail "staged sim scenario failed"
grep -q '^0 1 key slot=0 op=load$' b || fail "no key record in B's sim trace"
expect 2 "$replay" b
grep -q 'key slot 0 is loaded here' out || fail "sim trace without key: $(cat out)"
expect 0 "$replay" b --key-file K
grep -q 'every output matches' out || fail "replay with the key: $(cat out)"
expect 0 "$replay" a
head -c 64 /dev/urandom > K2
expect 1 "$replay" b --key-file K2
grep -q "the model's record differs" out || fail "another key: $(head -3 out)"
# the key file: 64 x N bytes, slot i the i-th key
cat K2 K > K22
expect 1 "$replay" b --key-file K22
cat K K2 > K12
expect 0 "$replay" b --key-file K12
head -c 65 K22 > K65
expect 2 "$replay" b --key-file K65
grep -q 'K65: 65 bytes: want 64' out || fail "bad key file: $(cat out)"
"$replay" --help | grep -q -- '--key-file FILE' || fail "--help lacks --key-file"
echo "demo_stage_trace: ok"
