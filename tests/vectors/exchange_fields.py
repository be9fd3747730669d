#!/usr/bin/env python3
"""The RoCE packets of an exchange as Wireshark dissects them, with what
differs from run to run taken out, so that two runs of the same exchange
(ours and rxe's golden capture) can be compared line by line.

One tab-separated line per RoCE packet:

  dir frame.len ip.dsfield ip.flags.df ip.ttl udp.length udp.checksum
  opcode se migreq padcnt tver pkey dqpn ackreq psn payload qkey sqp

dir is A for the side that sent the first RoCE packet and B for the other;
dqpn is the destination QP as "qpA"/"qpB" (the QP each side sends to: it
must not change within a direction); psn is the offset from the first PSN
of that direction; payload is the bytes' SHA-256 (first 16 hex digits);
qkey and sqp are a UD packet's DETH (Q_Key, and the source QP as "qpA"
or "qpB", its sender's: it must be the QP the other side sends to),
empty for the other transports.
Left out: addresses, IP ID and checksum, UDP source port, the ICRC (they
follow the addresses, QPNs and PSNs each run picks).

usage: exchange_fields.py CAPTURE > FIELDS.tsv
"""
import hashlib
import subprocess
import sys

FIELDS = [
    "ip.src", "frame.len", "ip.dsfield", "ip.flags.df", "ip.ttl", "udp.length",
    "udp.checksum", "infiniband.bth.opcode", "infiniband.bth.se",
    "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver",
    "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.bth.a",
    "infiniband.bth.psn", "data.data", "infiniband.deth.q_key",
    "infiniband.deth.srcqp",
]


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    cmd = ["tshark", "-r", sys.argv[1], "-Y", "infiniband", "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    sides, first_psn, dqpn, sqp = {}, {}, {}, {}
    assert out.strip(), f"{sys.argv[1]}: no RoCE packet to compare"
    for line in out.splitlines():
        c = line.split("\t")
        assert len(c) == len(FIELDS), f"unexpected tshark line: {line!r}"
        src = c[0]
        side = sides.setdefault(src, "AB"[len(sides)] if len(sides) < 2 else None)
        assert side is not None, f"a third sender: {src}"
        psn = int(c[15], 0)
        first_psn.setdefault(side, psn)
        q = dqpn.setdefault(side, c[13])
        assert q == c[13], f"side {side} sends to QP {c[13]} after {q}"
        if c[18]:
            q = sqp.setdefault(side, int(c[18], 0))
            assert q == int(c[18], 0), f"side {side} sends from QP {c[18]} after {q:#x}"
        payload = bytes.fromhex(c[16].replace(":", ""))
        row = [side] + [str(int(v, 0)) for v in c[1:13]] + [
            "qp" + "BA"["AB".index(side)], str(int(c[14], 0)),
            str((psn - first_psn[side]) % (1 << 24)),
            hashlib.sha256(payload).hexdigest()[:16],
            str(int(c[17], 0)) if c[17] else "",
            "qp" + side if c[18] else ""]
        print("\t".join(row))
    assert len(sides) == 2, f"{sys.argv[1]}: one side only ({', '.join(sides)}): not an exchange"
    # a DETH's source QP is the QP the other side sends to
    for side, q in sqp.items():
        other = "BA"["AB".index(side)]
        assert other not in dqpn or int(dqpn[other], 0) == q, \
            f"side {side} sends from QP {q:#x}, side {other} to {dqpn[other]}"
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:     # a capture that is not a clean exchange
        sys.exit(f"exchange_fields: {e}")
