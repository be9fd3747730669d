#!/usr/bin/env python3
"""Check a staged MR's DDR (roce-perf --save-ddr) against what the wire or
a known pattern says it holds.

  stage_ddr.py pattern DDR KEY UNIT DUN OFF LEN [QP]
      DDR[OFF:OFF+LEN], decrypted (XTS, tests/scripts/xts_ref.py), is
      roce-perf's --check pattern of QP (perf_pat_bw) from offset 0,
      and the stored bytes are not.
  stage_ddr.py plain DDR KEY UNIT DUN OFF EXPECT
      DDR[OFF:OFF+len(EXPECT)] decrypted equals the file EXPECT, stored
      bytes differ.
  stage_ddr.py decrypt-zeros OUT KEY UNIT DUN LEN
      what a staged MR of zeros sends: LEN zero bytes decrypted.

Decryption goes through xts_ref.py (Python's cryptography), an
implementation independent of the engine's OpenSSL calls. Exit 0 when
the check holds, 1 with one line saying where it does not.
"""
import os
import subprocess
import sys
import tempfile

XTS_REF = os.environ.get("XTS_REF") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "xts_ref.py")


def decrypt(data, key, unit, dun):
    """data (whole units from unit dun on) through xts_ref.py --decrypt"""
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run([sys.executable, XTS_REF, "--key-file", key, "--unit", str(unit),
                        "--dun-base", str(dun), "--decrypt", src, dst], check=True)
        with open(dst, "rb") as f:
            return f.read()


def pat_bw(qp, off):
    """perf_pat_bw() of src/perf/perf_check.c"""
    return (off ^ (off >> 8) * 3 ^ (off >> 16) * 5 ^ qp * 0x3d ^ 0xa5) & 0xff


def compare(stored, plain, expect, what):
    if plain != expect:
        bad = next(i for i in range(min(len(plain), len(expect)))
                   if i >= len(plain) or plain[i] != expect[i])
        print(f"{what}: decrypted byte {bad} is {plain[bad]:#04x}, expected {expect[bad]:#04x}")
        return 1
    if stored == expect:
        print(f"{what}: DDR holds the plaintext itself, not ciphertext")
        return 1
    return 0


def units(ddr, off, length, unit):
    """the whole units around [off, off+length): bytes, first unit's index"""
    first = off // unit
    last = (off + length + unit - 1) // unit
    return ddr[first * unit:last * unit], first


def main(argv):
    mode = argv[1]
    if mode == "decrypt-zeros":
        out, key, unit, dun, length = argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6])
        with open(out, "wb") as f:
            f.write(decrypt(bytes(length), key, unit, dun))
        return 0
    ddr_path, key, unit, dun, off = argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6])
    with open(ddr_path, "rb") as f:
        ddr = f.read()
    if mode == "pattern":
        length = int(argv[7])
        qp = int(argv[8]) if len(argv) > 8 else 0
        expect = bytes(pat_bw(qp, i) for i in range(length))
    else:
        with open(argv[7], "rb") as f:
            expect = f.read()
        length = len(expect)
    if off + length > len(ddr):
        print(f"DDR dump has {len(ddr)} bytes, the check needs {off + length}")
        return 1
    whole, first = units(ddr, off, length, unit)
    plain = decrypt(whole, key, unit, dun + first)
    skip = off - first * unit
    return compare(ddr[off:off + length], plain[skip:skip + length], expect,
                   f"DDR at {off}, {length} bytes")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
