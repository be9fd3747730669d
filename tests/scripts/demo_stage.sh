#!/usr/bin/env bash
# roce-demo --stage: what A's DDR holds after the flow, checked by code
# that is not ours. XTS: the saved DDR decrypted by Python's cryptography
# (xts_ref.py) is what the READ brought back, units 512 and 4096, at a
# DUN base; PI: the printed tuples recomputed here (CRC16 T10-DIF, poly
# 0x8BB7, init 0, no reflection, bit by bit); dedup: the logical volume
# rebuilt from the saved pool and its map is what was read, in fewer
# physical blocks than were written; dedup,xts,pi together; bad inputs
# exit 2 with one line.
set -euo pipefail
build=$1 src=$2
demo=$build/tools/roce-demo
ref=$src/tests/scripts/xts_ref.py
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
run() { timeout -k 5 120 "$demo" --quick --iters 5 "$@" > out 2>&1 || fail "roce-demo $* exited $?: $(tail -5 out)"; }
head -c 64 /dev/urandom > K
size=40000                      # not a whole number of units: partial units at the end

# the first $2 bytes of files $1 and R are the same
same() { cmp -s -n "$2" "$1" R || fail "$3: $(cmp -n "$2" "$1" R | head -1)"; }

# XTS: another implementation decrypts what DDR holds into what was read
for unit in 512 4096; do
  run --stage xts --key-file K --data-unit $unit --dun-base 5 --size $size --mtu 1024 --save-ddr D --save-read R
  [ "$(stat -c %s R)" -eq $size ] || fail "--save-read wrote $(stat -c %s R) bytes"
  cmp -s -n $size D R && fail "xts $unit: DDR holds the plaintext"
  python3 "$ref" --key-file K --unit $unit --dun-base 5 --decrypt D P
  same P $size "xts $unit: DDR decrypted by xts_ref.py differs from the READ"
  grep -q 'XTS key from K' out || fail "the key's source not said"
done
# a random key is said to be one and not shown
run --stage xts --size 8K
grep -q 'random, not shown' out || fail "random key: $(grep -i key out)"

# PI: the demo's printed tuples against our own CRC16 of the stored units
pi_check() { # file unit dun_base: every "unit i: guard app ref" line printed
  python3 - "$@" out <<'PY'
import re, sys
data, unit, base = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), int(sys.argv[3])
def crc16_t10dif(b):
    crc = 0
    for byte in b:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8BB7) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc
lines = re.findall(r'unit (\d+): guard 0x([0-9a-f]+) app 0x([0-9a-f]+) ref 0x([0-9a-f]+)',
                   open(sys.argv[4]).read())
if len(lines) < 4:
    sys.exit("fewer than 4 PI tuples printed")
for i, g, a, r in lines:
    i = int(i)
    want = (crc16_t10dif(data[i * unit:(i + 1) * unit]), 0, (base + i) & 0xFFFFFFFF)
    got = (int(g, 16), int(a, 16), int(r, 16))
    if got != want:
        sys.exit("unit %d: printed %s, computed %s" % (i, got, want))
PY
}
run --stage pi --data-unit 512 --dun-base 7 --size $size --save-ddr D --save-read R
same D $size "pi: DDR (plaintext under PI alone) differs from the READ"
pi_check D 512 7 || fail "pi tuples"

# dedup: the volume from the pool and its map
rebuild() { # pool map out
  python3 - "$@" <<'PY'
import sys
pool, out = open(sys.argv[1], 'rb').read(), bytearray()
for line in open(sys.argv[2]):
    l, p = line.split()
    assert int(l) == len(out) // 4096, "map lines out of order"
    out += bytes(4096) if p == '-' else pool[int(p) * 4096:(int(p) + 1) * 4096]
open(sys.argv[3], 'wb').write(out)
PY
}
blocks() { # written and in use, from the dedup line
  sed -n 's/.*dedup: \([0-9]*\) logical blocks written, \([0-9]*\) physical blocks in use.*/\1 \2/p' out
}
run --stage dedup --size 64K --save-ddr D --save-read R
[ -s D.map ] || fail "no D.map beside D"
[ "$(wc -l < D.map)" -eq $(( $(stat -c %s D) / 4096 )) ] || fail "D.map: not a line per block"
rebuild D D.map V
same V 65536 "dedup: the volume rebuilt from D and D.map differs from the READ"
read -r written used <<< "$(blocks)"
[ -n "$used" ] && [ "$used" -lt "$written" ] || fail "dedup saved nothing: $(grep 'dedup:' out)"

# all three: decrypt the pool (tweak = physical block), map it, compare;
# PI over what is stored, the reference tag the physical block
run --stage dedup,xts,pi --key-file K --size 64K --save-ddr D --save-read R
python3 "$ref" --key-file K --unit 4096 --decrypt D P
rebuild P D.map V
same V 65536 "dedup,xts,pi: the volume from the decrypted pool differs from the READ"
pi_check D 4096 0 || fail "dedup,xts,pi tuples"
read -r written used <<< "$(blocks)"
[ "$used" -lt "$written" ] || fail "dedup,xts,pi saved nothing"
grep -q '(d) FETCH_AND_ADD.*not run with --stage' out || fail "atomics not said to be skipped"
grep -q '^PASS' out || fail "no PASS"

# bad inputs: exit 2, one line
bad() { # pattern args...
  local want=$1; shift
  set +e; "$demo" --quick "$@" > out 2>&1; local rc=$?; set -e
  [ $rc -eq 2 ] || fail "$* exited $rc, want 2"
  [ "$(wc -l < out)" -eq 1 ] || fail "$*: not one line: $(cat out)"
  grep -q -- "$want" out || fail "$*: $(cat out)"
}
head -c 63 K > K63
bad "'foo': not a stage" --stage foo
bad "exactly 64 bytes" --stage xts --key-file K63
bad "must be 512 or 4096" --stage xts --data-unit 1024
bad "dedup must be first" --stage pi,dedup
"$demo" --help | grep -q -- '--save-ddr FILE' || fail "--help lacks --save-ddr"
"$demo" --help | grep -q 'FILE.map' || fail "--help does not say what FILE.map is"
echo "demo_stage: ok"
