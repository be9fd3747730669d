#!/usr/bin/env python3
"""Golden fields of every RoCE v2 packet of a capture, as Wireshark dissects
them (tshark -T fields), normalised to decimal, one tab-separated line per
packet. The columns are those of `roce-pcap --tsv` (its first 17):

  frame opcode dqpn psn pad pkey va rkey dmalen syndrome msn swap compare
  orig qkey sqpn icrc

An empty column means the packet has no such header. Wireshark shows the
AtomicETH VA and R_Key under reth.va / reth.r_key, as we do.

usage: tshark_fields.py CAPTURE > EXPECTED.tsv
"""
import subprocess
import sys

FIELDS = [
    "frame.number", "infiniband.bth.opcode", "infiniband.bth.destqp",
    "infiniband.bth.psn", "infiniband.bth.padcnt", "infiniband.bth.p_key",
    "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt", "infiniband.deth.q_key",
    "infiniband.deth.srcqp", "infiniband.invariant.crc",
]


def no_ulp():
    """Options that keep tshark from guessing at an upper-layer protocol
    inside the payloads (as tests/interop/lib/check.sh does): perftest's
    small SENDs in rdma_cm mode pass for a malformed ULP message, and tshark
    then shows no ICRC."""
    out = subprocess.run(["tshark", "-G", "heuristic-decodes"], check=True,
                         capture_output=True, text=True).stdout
    opts = []
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 2 and cols[0] == "infiniband.payload" and cols[1] != "ethertype":
            opts += ["--disable-protocol", cols[1]]
    return opts


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    cmd = ["tshark", "-r", sys.argv[1], "-Y", "infiniband", "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=a"] + no_ulp()
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) != len(FIELDS):
            sys.exit(f"unexpected tshark line: {line!r}")
        norm = []
        for name, v in zip(FIELDS, cols):
            if "," in v:
                sys.exit(f"field {name} occurs twice in frame {cols[0]}")
            norm.append(str(int(v, 0)) if v else "")
        print("\t".join(norm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
