#!/usr/bin/env python3
"""A staged run's two halves agree (lib/stage.sh check_stage): the payload
the capture carried (WRITE and READ response data, or SEND messages, RoCE
v2 over IPv4) is plaintext, and our MR's DDR (roce-perf or roce-pingpong
--save-ddr), decrypted with the run's key by tests/scripts/xts_ref.py,
holds exactly it where it landed or whence it was fetched, while the
stored bytes are not it.

  stage_wire.py PCAP DDR KEY UNIT DUN ROLE TOOL MTU OUR_MAC [BASE_VA]

ROLE is our tool's: server (rxe WRITEs into or READs from our MR at
BASE_VA, the address our tool printed) or client (we READ rxe's memory
into our MR, or WRITE from it; one QP, its region at the MR's start, so
an offset in rxe's region is the same offset in ours).

TOOL rc_pingpong: both sides SEND from and receive into their buffer's
start, each side sending back what it received, so every message either
way is one and the same. Where ibv_rc_pingpong is the client its
messages are its buffer as pp_init_ctx() leaves it (rc_pingpong.c:
memset(ctx->buf, 0x7b, size), no -c); where it is the server it returns
ours, and ours are what our buffer's 0x7b bytes, taken as stored, fetch
as, so our DDR ends holding them again. Either way our DDR decrypts to
the message.

Prints one line: what was compared, or where it differs (exit 1).
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
            # a packet's place is its message's first VA plus a path MTU
            # per PSN after the first: a resend from una may start in the
            # middle of a message (go-back-N, a tail-loss probe)
            if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
                va[(qpn, psn)] = struct.unpack_from(">Q", rest, 0)[0]
                body = rest[16:] if op != WRITE_ONLY_IMM else rest[20:]
                out.append((va[(qpn, psn)], body))
            elif op in (WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM):
                body = rest if op != WRITE_LAST_IMM else rest[4:]
                for k in range(1, 4096):     # the message's first packet
                    base = va.get((qpn, (psn - k) & 0xFFFFFF))
                    if base is not None:
                        out.append((base + k * mtu, body))
                        break
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


SEND_OPS = range(0, 6)          # SEND First, Middle, Last, Last with Imm, Only, Only with Imm
SEND_STARTS, SEND_ENDS = (0, 4, 5), (2, 3, 4, 5)
RC_PINGPONG_FILL = 0x7B         # rc_pingpong.c pp_init_ctx()


def messages(pcap, our_mac):
    """{True: our SEND messages, False: rxe's}, each whole, in PSN order;
    a packet sent again (same PSN) counted once"""
    ours = bytes(int(x, 16) for x in our_mac.split(":"))
    out = {True: [], False: []}
    seen = set()
    cur = {}
    for src, op, qpn, psn, rest in frames(pcap):
        from_us = src == ours
        if op not in SEND_OPS or (from_us, psn) in seen:
            continue
        seen.add((from_us, psn))
        if op in (3, 5):        # the immediate precedes the payload
            rest = rest[4:]
        if op in SEND_STARTS:
            cur[from_us] = b""
        cur[from_us] = cur.get(from_us, b"") + rest
        if op in SEND_ENDS:
            out[from_us].append(cur.pop(from_us))
    return out


def check_pingpong(pcap, stored, plain, role, mac):
    """every SEND either way the one message, which our DDR decrypts to"""
    msgs = messages(pcap, mac)
    if not msgs[True] or not msgs[False]:
        return 1, f"SEND messages: {len(msgs[True])} of ours, {len(msgs[False])} of rxe's"
    first = msgs[False][0] if role == "server" else msgs[True][0]
    size = len(first)
    for who, sent in ((True, "ours"), (False, "rxe's")):
        for i, m in enumerate(msgs[who]):
            if m != first:
                return 1, f"{sent} SEND {i} ({len(m)} bytes) is not the run's message"
    if role == "server" and first != bytes([RC_PINGPONG_FILL]) * size:
        return 1, "ibv_rc_pingpong's message is not its buffer's 0x7b bytes"
    if plain[:size] != first:
        return 1, f"our DDR does not decrypt to the {size}-byte message on the wire"
    if stored[:size] == first:
        return 1, "our DDR holds the wire's plaintext, not ciphertext"
    if role == "client" and stored[:size] != bytes([RC_PINGPONG_FILL]) * size:
        return 1, "our DDR does not hold our buffer's 0x7b bytes again"
    what = ("ibv_rc_pingpong's 0x7b bytes" if role == "server" else
            "what our 0x7b bytes fetch as, returned by ibv_rc_pingpong")
    return 0, (f"{len(msgs[False])} SENDs of rxe's and {len(msgs[True])} of ours, {size} bytes "
               f"each: {what}; our DDR decrypts to them and holds ciphertext")


def main(argv):
    pcap, ddr_path, key, unit, dun, role, tool, mtu, mac = argv[1:10]
    unit, dun, mtu = int(unit), int(dun), int(mtu)
    with open(ddr_path, "rb") as f:
        stored = f.read()
    plain = stage_ddr.decrypt(stored[:len(stored) // unit * unit], key, unit, dun)
    if tool == "rc_pingpong":
        rc, line = check_pingpong(pcap, stored, plain, role, mac)
        print(line)
        return rc
    got = pieces(pcap, role, tool, mtu, mac)
    if not got:
        print(f"no {tool} data packets in the capture")
        return 1
    base = int(argv[10], 0) if role == "server" else min(a for a, _ in got)
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
