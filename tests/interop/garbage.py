#!/usr/bin/env python3
"""Send bad RoCE v2 frames at an engine while it talks to a real peer.

Runs in the wire namespace on the bridge: it watches the bridge for a RoCE
v2 frame addressed to the target MAC (a live request or ACK from the peer,
so QPN, PSN and addresses are real), then sends, through the same bridge,
copies of it made bad in one way each:

  bad_icrc     the ICRC inverted                  -> dropped, counted (drop_icrc)
  unknown_qpn  a destination QPN nobody owns      -> dropped, counted (drop_qpn)
  wrong_psn    the PSN moved 2^21 ahead           -> NAK PSN sequence error or drop
  bad_opcode   a reserved RC opcode (0x1f)        -> dropped, counted (drop_opcode)
  truncated    cut inside the BTH                 -> dropped (too short / lengths)
  bad_ip_csum  a wrong IPv4 header checksum       -> dropped (drop_ip_csum)
  junk         random bytes after the UDP header  -> dropped

The ICRC of each modified frame is recomputed (IBA Annex A17.8.1), so that
each frame is wrong in exactly the one way its name says. Prints one JSON
object: what was sent, per kind. Exit 0 when everything was sent, 1 when no
live frame was seen before the timeout, 2 on bad arguments.

Offline (tests/interop/selftest): --from-pcap takes the live frame from a
capture, --to-pcap writes the bad frames into a capture instead of sending.
"""
import argparse
import json
import os
import random
import socket
import struct
import sys
import time
import zlib

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
ROCE_PORT = 4791
KINDS = ("bad_icrc", "unknown_qpn", "wrong_psn", "bad_opcode", "truncated",
         "bad_ip_csum", "junk")


def mac_bytes(text):
    parts = text.split(":")
    if len(parts) != 6:
        raise ValueError("bad MAC " + text)
    return bytes(int(p, 16) for p in parts)


def icrc(frame):
    """ICRC of an Ethernet + IPv4 + UDP + BTH... frame (without its ICRC).

    CRC-32 over 8 bytes of ones (the absent LRH), the IPv4 header with TOS,
    TTL and checksum set to ones, the UDP header with its checksum set to
    ones, the BTH with its reserved byte 4 set to ones, and the rest;
    stored least significant byte first, as rxe and ConnectX do.
    """
    ip = bytearray(frame[14:34])
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    udp = bytearray(frame[34:42])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(frame[42:54])
    bth[4] = 0xFF
    data = b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + frame[54:]
    return struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)


def ip_checksum(hdr):
    total = 0
    for i in range(0, len(hdr), 2):
        total += (hdr[i] << 8) | hdr[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def is_roce_to(frame, dst_mac):
    if len(frame) < 14 + 20 + 8 + 12 + 4 or frame[0:6] != dst_mac:
        return False
    if frame[12:14] != b"\x08\x00" or frame[14] != 0x45 or frame[23] != 17:
        return False
    return struct.unpack("!H", frame[36:38])[0] == ROCE_PORT


def with_icrc(body):
    return body + icrc(body)


def craft(template, kind, rng):
    """One bad frame of the given kind from a live template frame."""
    body = bytearray(template[:-4])
    if kind == "bad_icrc":
        bad = bytes(b ^ 0xFF for b in template[-4:])
        return bytes(body) + bad
    if kind == "unknown_qpn":
        qpn = struct.unpack("!I", b"\0" + bytes(body[47:50]))[0]
        # far from the engine's QPNs (allocated upwards from 0x11) and not
        # the multicast QPN 0xffffff
        body[47:50] = struct.pack("!I", (qpn ^ 0x5A5A5A) & 0x7FFFFF | 0x400000)[1:]
        return with_icrc(bytes(body))
    if kind == "wrong_psn":
        psn = struct.unpack("!I", b"\0" + bytes(body[51:54]))[0]
        body[51:54] = struct.pack("!I", (psn + (1 << 21)) & 0xFFFFFF)[1:]
        return with_icrc(bytes(body))
    if kind == "bad_opcode":
        body[42] = 0x1F
        return with_icrc(bytes(body))
    if kind == "truncated":
        return bytes(body[:14 + 20 + 8 + 6])
    if kind == "bad_ip_csum":
        body[24:26] = struct.pack("!H", ip_checksum(bytes(body[14:24]) + b"\0\0" +
                                                    bytes(body[26:34])) ^ 0x5555)
        return with_icrc(bytes(body))
    if kind == "junk":
        n = rng.randrange(1, 200)
        junk = bytes(rng.randrange(256) for _ in range(n))
        ip = bytearray(body[14:34])
        ip[2:4] = struct.pack("!H", 20 + 8 + n)
        ip[10:12] = b"\0\0"
        ip[10:12] = struct.pack("!H", ip_checksum(bytes(ip)))
        udp = bytearray(body[34:42])
        udp[4:6] = struct.pack("!H", 8 + n)
        udp[6:8] = b"\0\0"
        return bytes(body[:14]) + bytes(ip) + bytes(udp) + junk
    raise ValueError(kind)


def pcap_frames(path):
    """The frames of a classic pcap file (either byte order, us or ns)."""
    data = open(path, "rb").read()
    if len(data) < 24:
        raise ValueError("%s: not a pcap file" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def pcap_write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)))
            f.write(frame)


def wait_template(sock, dst_mac, deadline):
    while time.monotonic() < deadline:
        try:
            frame, addr = sock.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == PACKET_OUTGOING:
            continue
        if is_roce_to(frame, dst_mac):
            return frame
    return None


def describe(frame):
    return {
        "src_ip": socket.inet_ntoa(frame[26:30]),
        "dst_ip": socket.inet_ntoa(frame[30:34]),
        "opcode": frame[42],
        "dqpn": struct.unpack("!I", b"\0" + frame[47:50])[0],
        "psn": struct.unpack("!I", b"\0" + frame[51:54])[0],
        "len": len(frame),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iface", help="interface to watch and send on (br0)")
    ap.add_argument("--from-pcap", help="offline: the live frame from this capture")
    ap.add_argument("--to-pcap", help="offline: write the bad frames here, send nothing")
    ap.add_argument("--dst-mac", required=True, help="MAC of the engine under test")
    ap.add_argument("--count", type=int, default=5, help="frames of each kind (default 5)")
    ap.add_argument("--kinds", default=",".join(KINDS),
                    help="comma-separated kinds (default: all): " + ",".join(KINDS))
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for a live frame (default 30)")
    ap.add_argument("--gap-ms", type=float, default=20.0,
                    help="pause between frames (default 20 ms)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            ap.error("unknown kind %r (known: %s)" % (k, ", ".join(KINDS)))
    if not 1 <= args.count <= 1000:
        ap.error("--count must be 1..1000")
    try:
        dst_mac = mac_bytes(args.dst_mac)
    except ValueError as e:
        ap.error(str(e))
    rng = random.Random(args.seed)
    if not args.iface and not (args.from_pcap and args.to_pcap):
        ap.error("--iface is required (or both --from-pcap and --to-pcap)")

    sock = None
    if not (args.from_pcap and args.to_pcap):
        try:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            sock.bind((args.iface, 0))
        except OSError as e:
            print("garbage: cannot open %s: %s" % (args.iface, e), file=sys.stderr)
            return 2
        sock.settimeout(0.2)
    if args.from_pcap:
        try:
            template = next((f for f in pcap_frames(args.from_pcap)
                             if is_roce_to(f, dst_mac)), None)
        except (OSError, ValueError) as e:
            print("garbage: %s" % e, file=sys.stderr)
            return 2
        where = args.from_pcap
    else:
        template = wait_template(sock, dst_mac, time.monotonic() + args.timeout)
        where = "%s within %.0f s" % (args.iface, args.timeout)
    if template is None:
        print("garbage: no RoCE v2 frame to %s in %s" % (args.dst_mac, where),
              file=sys.stderr)
        return 1
    sent, out = {}, []
    for k in kinds:
        for _ in range(args.count):
            frame = craft(template, k, rng)
            if args.to_pcap:
                out.append(frame)
            else:
                sock.send(frame)
                time.sleep(args.gap_ms / 1000.0)
            sent[k] = sent.get(k, 0) + 1
    if args.to_pcap:
        try:
            pcap_write(args.to_pcap, [template] + out)
        except OSError as e:
            print("garbage: %s" % e, file=sys.stderr)
            return 2
    print(json.dumps({"template": describe(template), "sent": sent}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
