#!/usr/bin/env python3
"""A staged run's two halves agree (lib/stage.sh check_stage): the payload
the capture carried (WRITE and READ response data, RoCE v2 over IPv4) is
plaintext, and our MR's DDR (roce-perf --save-ddr), decrypted with the
run's key by tests/scripts/xts_ref.py, holds exactly it where it landed
or whence it was fetched, while the stored bytes are not it.

  stage_wire.py PCAP DDR KEY UNIT DUN ROLE TOOL MTU OUR_MAC [BASE_VA]

ROLE is our tool's: server (rxe WRITEs into or READs from our MR at
BASE_VA, the address our tool printed) or client (we READ rxe's memory
into our MR, or WRITE from it; one QP, its region at the MR's start, so
an offset in rxe's region is the same offset in ours). Prints one line:
what was compared, or where it differs (exit 1).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "lib"))
import stage_ddr  # noqa: E402

WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = range(6, 12)
READ_REQ, RESP_FIRST, RESP_MIDDLE, RESP_LAST, RESP_ONLY = range(12, 17)


def frames(path):
    """(src mac, opcode, dest QPN, PSN, headers after the BTH + payload) per RoCE v2 frame"""
    with open(path, "rb") as f:
        data = f.read()
    pos = 24
    while pos + 16 <= len(data):
        incl = struct.unpack_from("<I", data, pos + 8)[0]
        fr = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        if len(fr) < 14 + 20 + 8 + 12 or fr[12:14] != b"\x08\x00":
            continue
        ihl = (fr[14] & 15) * 4
        udp = 14 + ihl
        if fr[23] != 17 or struct.unpack_from(">H", fr, udp + 2)[0] != 4791:
            continue
        bth = udp + 8
        op = fr[bth]
        pad = (fr[bth + 1] >> 4) & 3
        qpn = struct.unpack_from(">I", fr, bth + 4)[0] & 0xFFFFFF
        psn = struct.unpack_from(">I", fr, bth + 8)[0] & 0xFFFFFF
        yield fr[6:12], op, qpn, psn, fr[bth + 12:len(fr) - 4 - pad] if pad else fr[bth + 12:len(fr) - 4]


def pieces(pcap, role, tool, mtu, our_mac):
    """(address in the peer-given space, bytes) of every data packet"""
    ours = bytes(int(x, 16) for x in our_mac.split(":"))
    va = {}
    reqs = {}
    out = []
    for src, op, qpn, psn, rest in frames(pcap):
        from_us = src == ours
        if tool == "write_bw" and from_us == (role == "client"):
            if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
                va[qpn] = struct.unpack_from(">Q", rest, 0)[0]
                body = rest[16:] if op != WRITE_ONLY_IMM else rest[20:]
            elif op in (WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM) and qpn in va:
                body = rest if op != WRITE_LAST_IMM else rest[4:]
            else:
                continue
            out.append((va[qpn], body))
            va[qpn] += len(body)
        elif tool == "read_bw":
            if op == READ_REQ and from_us == (role == "client"):
                reqs[psn] = struct.unpack_from(">Q", rest, 0)[0]
            elif op in (RESP_FIRST, RESP_MIDDLE, RESP_LAST, RESP_ONLY) and from_us != (role == "client"):
                body = rest if op == RESP_MIDDLE else rest[4:]
                for k in range(0, 4096):     # the request this response answers
                    base = reqs.get((psn - k) & 0xFFFFFF)
                    if base is not None:
                        out.append((base + k * mtu, body))
                        break
    return out


def main(argv):
    pcap, ddr_path, key, unit, dun, role, tool, mtu, mac = argv[1:10]
    unit, dun, mtu = int(unit), int(dun), int(mtu)
    got = pieces(pcap, role, tool, mtu, mac)
    if not got:
        print(f"no {tool} data packets in the capture")
        return 1
    base = int(argv[10], 0) if role == "server" else min(a for a, _ in got)
    with open(ddr_path, "rb") as f:
        stored = f.read()
    plain = stage_ddr.decrypt(stored[:len(stored) // unit * unit], key, unit, dun)
    n = 0
    for addr, body in got:
        off = addr - base
        if off < 0 or off + len(body) > len(plain):
            print(f"a packet's data at {addr:#x} lies outside our MR ({len(stored)} bytes at {base:#x})")
            return 1
        if plain[off:off + len(body)] != body:
            print(f"the wire's {len(body)} bytes for MR offset {off} are not what our DDR decrypts to")
            return 1
        if stored[off:off + len(body)] == body and any(body):
            print(f"our DDR at MR offset {off} holds the wire's plaintext, not ciphertext")
            return 1
        n += len(body)
    print(f"{len(got)} packets, {n} bytes on the wire: plaintext; our DDR decrypts to them "
          f"and holds ciphertext")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
