#!/usr/bin/env python3
"""The CM MADs of a capture as Wireshark dissects them: every field of the
MAD header (infiniband.mad.*) and of the CM messages (infiniband.cm.*), one
tab-separated line per field and frame:

  frame  field  value

value is decimal for numbers, lowercase hex for bytes and IPv6 addresses
(16 bytes), and 8 hex digits for IPv4 addresses (a GID Wireshark shows as
IPv4, field name ending in _ipv4, or the rdma_cm header's addresses).
Fields Wireshark does not show for a frame are left out. The MAD payload
(infiniband.mad.data) is left out: it is the rest of the frame.

usage: cm_fields.py CAPTURE > EXPECTED.tsv
"""
import ipaddress
import subprocess
import sys


def field_types():
    out = subprocess.run(["tshark", "-G", "fields"], check=True,
                         capture_output=True, text=True).stdout
    types = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) < 4 or cols[0] != "F":
            continue
        name, ftype = cols[2], cols[3]
        if name == "infiniband.mad.data":
            continue
        if name.startswith("infiniband.mad.") or name.startswith("infiniband.cm."):
            types[name] = ftype
    return types


def normalise(value, ftype):
    if ftype.startswith("FT_UINT") or ftype.startswith("FT_INT"):
        return str(int(value, 0))
    if ftype == "FT_IPv6":
        return ipaddress.IPv6Address(value).packed.hex()
    if ftype == "FT_IPv4":
        return ipaddress.IPv4Address(value).packed.hex()
    if ftype == "FT_BYTES":
        return value.replace(":", "").lower()
    return value


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    types = field_types()
    if not types:
        print("cm_fields.py: tshark knows no infiniband.cm fields", file=sys.stderr)
        return 1
    names = sorted(types)
    cmd = ["tshark", "-r", sys.argv[1], "-Y", "infiniband.mad.mgmtclass == 0x07",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f",
           "-e", "frame.number"]
    for n in names:
        cmd += ["-e", n]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = 0
    for line in out.splitlines():
        cols = line.split("\t")
        frames += 1
        for name, value in zip(names, cols[1:]):
            if value != "":
                print(f"{cols[0]}\t{name}\t{normalise(value, types[name])}")
    if frames == 0:
        print(f"cm_fields.py: no CM MAD in {sys.argv[1]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
