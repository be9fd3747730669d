#!/usr/bin/env bash
# The XTS stage's cipher against another implementation over whole files:
# tests/helpers/xts_file (src/stage/xts.c, OpenSSL's EVP) and
# tests/scripts/xts_ref.py (Python's cryptography) give the same
# ciphertext for units of 512 and 4096 bytes from DUN bases 0, above 2^32
# and just below 2^64 (the tweak carries into its high 64 bits), and each
# decrypts what the other encrypted. Then the reference tool's own checks
# (help, refusals), as the demo's --save-ddr output is checked with it.
set -euo pipefail
build=$1
src=$2
helper=$build/tests/helpers/xts_file
ref=$src/tests/scripts/xts_ref.py
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
[ -x "$helper" ] || fail "$helper not built"
python3 -c 'import cryptography' 2>/dev/null ||
  fail "python3-cryptography is missing (scripts/install-deps)"

expect() { # want-rc pattern cmd...
  local want=$1 pat=$2; shift 2
  set +e; "$@" > out 2>&1; local rc=$?; set -e
  [ $rc -eq "$want" ] || fail "$* exited $rc, want $want: $(head -c 600 out)"
  grep -qE -e "$pat" out || fail "$* did not say /$pat/: $(head -c 600 out)"
}

# seeded pseudo-random bytes: the same data every run
python3 -c 'import random, sys
r = random.Random(int(sys.argv[1])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[2])))' \
  1619 64 > key
python3 -c 'import random, sys
r = random.Random(int(sys.argv[1])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[2])))' \
  2718 $((24 * 4096)) > plain

n=0
for unit in 512 4096; do
  for dun in 0 $(( (1 << 32) + 7 )) 0xfffffffffffffffd; do
    what="unit $unit, DUN base $dun"
    "$helper" --key-file key --unit $unit --dun-base $dun plain c.ours || fail "$what: xts_file"
    python3 "$ref" --key-file key --unit $unit --dun-base $dun plain c.ref || fail "$what: xts_ref.py"
    cmp -s c.ours c.ref || fail "$what: the ciphertexts differ ($(cmp c.ours c.ref || true))"
    cmp -s c.ours plain && fail "$what: stored in the clear"
    "$helper" --decrypt --key-file key --unit $unit --dun-base $dun c.ref p.ours ||
      fail "$what: xts_file --decrypt"
    python3 "$ref" --decrypt --key-file key --unit $unit --dun-base $dun c.ours p.ref ||
      fail "$what: xts_ref.py --decrypt"
    cmp -s p.ours plain && cmp -s p.ref plain || fail "$what: a decryption is not the plaintext"
    n=$((n + 1))
  done
done
# the DUN base matters: one unit further on is another ciphertext
python3 "$ref" --key-file key --unit 512 --dun-base 1 plain c.one
"$helper" --key-file key --unit 512 --dun-base 0 plain c.zero
cmp -s c.one c.zero && fail "DUN bases 0 and 1 gave the same ciphertext"
# the file from its unit 1 on with base 1 is the same as its tail from base 0
tail -c +513 plain > rest
python3 "$ref" --key-file key --unit 512 --dun-base 1 rest c.rest
cmp -s c.rest <(tail -c +513 c.zero) || fail "units 1.. from base 1 are not units 1.. from base 0"

# the reference tool's help and refusals
expect 0 '^usage: xts_ref.py' python3 "$ref" --help
expect 0 'DUN_BASE \+ i' python3 "$ref" --help
expect 2 'invalid choice' python3 "$ref" --key-file key --unit 1024 plain x
expect 2 'required' python3 "$ref" --unit 512 plain x
expect 2 'not a number' python3 "$ref" --key-file key --unit 512 --dun-base zz plain x
head -c 63 key > short
expect 1 '63 bytes, a key is 64' python3 "$ref" --key-file short --unit 512 plain x
head -c 32 key > half; cat half half > twin
expect 1 'halves are equal' python3 "$ref" --key-file twin --unit 512 plain x
expect 1 'xts_file: key refused' "$helper" --key-file twin --unit 512 plain x
head -c 1000 plain > odd
expect 1 'not a whole number of 512-byte units' python3 "$ref" --key-file key --unit 512 odd x
expect 1 'xts_file: ' "$helper" --key-file key --unit 512 odd x
expect 1 'No such file' python3 "$ref" --key-file key --unit 512 missing x
# standard input and output
python3 "$ref" --key-file key --unit 4096 - - < plain > c.pipe
"$helper" --key-file key --unit 4096 plain c.ours
cmp -s c.pipe c.ours || fail "through - and - the ciphertext differs"
echo "ok: xts_file and xts_ref.py agree on $n unit/DUN combinations"
