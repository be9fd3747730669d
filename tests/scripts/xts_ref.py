#!/usr/bin/env python3
"""AES-256-XTS over a file in data units, by Python's cryptography (Debian
python3-cryptography), apart from the engine's OpenSSL EVP path: the
reference the XTS stage is checked against. Unit i of the file (i from 0)
is encrypted with the tweak DUN_BASE + i as a 128-bit little-endian
integer (IEEE 1619's data unit sequence number), as the XTS stage does
with an MR: `roce-demo --save-ddr FILE` with the demo's key file and DUN
base decrypts with

  xts_ref.py --decrypt --key-file KEY --unit 4096 --dun-base 0 FILE PLAIN

usage: xts_ref.py [--decrypt] --key-file KEY --unit 512|4096
                  [--dun-base N] IN OUT

KEY holds 64 bytes, Key1 (the data key) then Key2 (the tweak key); its
halves must differ. IN's length must be a whole number of units. IN or
OUT may be - (standard input or output). N may be given in hex (0x...).
Exit 0 on success, 1 on a bad key or input, 2 on usage.
"""
import argparse
import sys

try:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
except ImportError:  # pragma: no cover - told plainly, not as a traceback
    sys.exit("xts_ref.py: Python's cryptography is missing "
             "(Debian: apt-get install python3-cryptography)")

KEY_LEN = 64
TWEAK_MAX = 1 << 128


def fail(msg):
    print(f"xts_ref.py: {msg}", file=sys.stderr)
    sys.exit(1)


def dun(text):
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if not 0 <= n < TWEAK_MAX:
        raise argparse.ArgumentTypeError("outside 0 .. 2^128 - 1")
    return n


def parse(argv):
    p = argparse.ArgumentParser(
        prog="xts_ref.py",
        description="AES-256-XTS over a file in data units (IEEE 1619), "
                    "unit i with the tweak DUN_BASE + i (128-bit little-endian).")
    p.add_argument("--key-file", required=True, metavar="KEY",
                   help="64 bytes: Key1 (data) then Key2 (tweak)")
    p.add_argument("--unit", required=True, type=int, choices=(512, 4096),
                   help="data unit in bytes")
    p.add_argument("--dun-base", type=dun, default=0, metavar="N",
                   help="tweak of the file's first unit (default 0)")
    p.add_argument("--decrypt", action="store_true", help="decrypt (default: encrypt)")
    p.add_argument("input", metavar="IN", help="input file, - for standard input")
    p.add_argument("output", metavar="OUT", help="output file, - for standard output")
    return p.parse_args(argv)


def read(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with open(path, "wb") as f:
        f.write(data)


def xts(key, unit, dun_base, data, decrypt=False):
    """data (a whole number of units) through AES-256-XTS, unit i with the
    tweak dun_base + i."""
    out = bytearray()
    for i in range(len(data) // unit):
        tweak = (dun_base + i).to_bytes(16, "little")
        c = Cipher(algorithms.AES(key), modes.XTS(tweak))
        op = c.decryptor() if decrypt else c.encryptor()
        out += op.update(data[i * unit:(i + 1) * unit]) + op.finalize()
    return bytes(out)


def main(argv):
    args = parse(argv)
    try:
        key = read(args.key_file)
        data = read(args.input)
    except OSError as e:
        fail(e)
    if len(key) != KEY_LEN:
        fail(f"{args.key_file}: {len(key)} bytes, a key is {KEY_LEN}")
    if key[:32] == key[32:]:
        fail(f"{args.key_file}: the two halves are equal (IEEE 1619 refuses it)")
    if len(data) % args.unit:
        fail(f"{args.input}: {len(data)} bytes is not a whole number of "
             f"{args.unit}-byte units")
    if args.dun_base + len(data) // args.unit > TWEAK_MAX:
        fail("the last unit's tweak passes 2^128")
    try:
        write(args.output, xts(key, args.unit, args.dun_base, data, args.decrypt))
    except OSError as e:
        fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
