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
  spoofed_src  another source IP on the segment, -> dropped, counted (drop_src_addr):
               the next PSNs, payload 0xEE           a connected QP takes its peer's
                                                     packets only

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
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
ROCE_PORT = 4791
KINDS = ("bad_icrc", "unknown_qpn", "wrong_psn", "bad_opcode", "truncated",
         "bad_ip_csum", "junk", "spoofed_src")


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


# BTH + extension headers of the opcodes a template can be (IBA 9.2-9.4):
# RC SEND/WRITE/READ requests, READ responses, ACKs, atomics; 12 = BTH only
HDR_LEN = {0x06: 28, 0x0A: 28, 0x0B: 32, 0x07: 12, 0x08: 12, 0x09: 16,
           0x0C: 28, 0x10: 16, 0x0D: 16, 0x0E: 12, 0x0F: 16, 0x11: 16,
           0x12: 24, 0x13: 40, 0x14: 40, 0x03: 16, 0x05: 16, 0x04: 12,
           0x00: 12, 0x01: 12, 0x02: 12}


RETH_OPCODES = (0x06, 0x0A, 0x0B, 0x0C)   # RC WRITE FIRST/ONLY(/IMM), READ


def with_icrc(body):
    return body + icrc(body)


def spoof(body, index, spoof_ip, va_add):
    """The template from another station: source IP spoof_ip (default: the
    template's with its last octet changed), UDP checksum 0 (valid for
    IPv4), the PSN index + 1 ahead of the template's (the PSNs the target
    expects next: without a source check one of them would execute), the
    payload overwritten with 0xEE, a RETH's VA moved by va_add."""
    ip = bytearray(body[14:34])
    ip[12:16] = spoof_ip if spoof_ip else bytes(ip[12:15]) + bytes([ip[15] ^ 0x40])
    ip[10:12] = b"\0\0"
    ip[10:12] = struct.pack("!H", ip_checksum(bytes(ip)))
    body[14:34] = ip
    body[40:42] = b"\0\0"
    psn = struct.unpack("!I", b"\0" + bytes(body[51:54]))[0]
    body[51:54] = struct.pack("!I", (psn + 1 + index) & 0xFFFFFF)[1:]
    hdr = 14 + 20 + 8 + HDR_LEN.get(body[42], 12)
    pad = (body[43] >> 4) & 3
    end = len(body) - pad
    if end > hdr:
        body[hdr:end] = b"\xee" * (end - hdr)
    if va_add and body[42] in RETH_OPCODES:
        va = struct.unpack("!Q", bytes(body[54:62]))[0]
        body[54:62] = struct.pack("!Q", (va + va_add) & (2**64 - 1))
    return with_icrc(bytes(body))


def craft(template, kind, rng, index=0, spoof_ip=None, va_add=0):
    """One bad frame of the given kind from a live template frame (index:
    its number among the frames of that kind)."""
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
    if kind == "spoofed_src":
        return spoof(body, index, spoof_ip, va_add)
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


def make_template(spec, dst_mac, src_mac):
    """An RC WRITE ONLY from the fields SRC_IP,DST_IP,QPN,PSN,VA,RKEY,LEN
    (numbers in C notation): a template when the QP's parameters are known
    (a tool printed them) instead of seen on the wire."""
    f = spec.split(",")
    if len(f) != 7:
        raise ValueError("--make-template needs SRC_IP,DST_IP,QPN,PSN,VA,RKEY,LEN")
    src, dst = socket.inet_aton(f[0]), socket.inet_aton(f[1])
    qpn, psn, va, rkey, n = (int(x, 0) for x in f[2:])
    if qpn >> 24 or psn >> 24 or va >> 64 or rkey >> 32 or not 0 < n <= 4096:
        raise ValueError("--make-template: a field out of range")
    pad = -n % 4
    bth = struct.pack("!BBHII", 0x0A, pad << 4, 0xFFFF, qpn, 0x80000000 | psn)
    reth = struct.pack("!QII", va, rkey, n)
    payload = b"\0" * (n + pad)
    udp = struct.pack("!HHHH", 0xC000, ROCE_PORT, 8 + len(bth) + len(reth) + len(payload) + 4, 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(bth) + len(reth)
                               + len(payload) + 4, 0, 0x4000, 64, 17, 0, src, dst))
    ip[10:12] = struct.pack("!H", ip_checksum(bytes(ip)))
    return with_icrc(dst_mac + src_mac + b"\x08\x00" + bytes(ip) + udp + bth + reth + payload)


def wait_template(sock, dst_mac, deadline, outgoing=False):
    while time.monotonic() < deadline:
        try:
            frame, addr = sock.recvfrom(65535)
        except socket.timeout:
            continue
        if (addr[2] == PACKET_OUTGOING) != outgoing:
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
    ap.add_argument("--spoof-ip", help="source IP of the spoofed_src frames "
                    "(default: the template's with its last octet changed)")
    ap.add_argument("--va-add", type=int, default=0,
                    help="spoofed_src: add this to the VA of a RETH (aim at "
                    "a part of the region the peer never writes)")
    ap.add_argument("--make-template", metavar="SRC_IP,DST_IP,QPN,PSN,VA,RKEY,LEN",
                    help="build the template (an RC WRITE ONLY from --iface's MAC) "
                    "instead of waiting for one; - reads the fields from a line "
                    "of standard input (after --ready)")
    ap.add_argument("--ready", metavar="FILE",
                    help="create FILE once the socket is open (before the wait)")
    ap.add_argument("--outgoing", action="store_true",
                    help="take the template from frames this host sends to "
                    "--dst-mac (a veth end beside the peer), not from frames "
                    "passing by")
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
    spoof_ip = None
    if args.spoof_ip:
        try:
            spoof_ip = socket.inet_aton(args.spoof_ip)
        except OSError:
            ap.error("bad --spoof-ip %r" % args.spoof_ip)
    if not args.iface and not (args.from_pcap and args.to_pcap):
        ap.error("--iface is required (or both --from-pcap and --to-pcap)")

    sock = None
    if not (args.from_pcap and args.to_pcap):
        try:
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            sock.bind((args.iface, 0))
            # promiscuous while the socket lives: a bridge passes frames
            # between its ports up to itself only then (tcpdump does it
            # too, but need not be running)
            mreq = struct.pack("iHH8s", socket.if_nametoindex(args.iface),
                               PACKET_MR_PROMISC, 0, b"")
            sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
        except OSError as e:
            print("garbage: cannot open %s: %s" % (args.iface, e), file=sys.stderr)
            return 2
        sock.settimeout(0.2)
        if args.ready:
            open(args.ready, "w").close()
    if args.make_template:
        try:
            with open("/sys/class/net/%s/address" % args.iface) as f:
                src_mac = mac_bytes(f.read().strip())
            spec = args.make_template
            if spec == "-":     # started early, told the QP's fields later
                spec = sys.stdin.readline().strip()
            template = make_template(spec, dst_mac, src_mac)
        except (OSError, ValueError) as e:
            print("garbage: %s" % e, file=sys.stderr)
            return 2
    elif args.from_pcap:
        try:
            template = next((f for f in pcap_frames(args.from_pcap)
                             if is_roce_to(f, dst_mac)), None)
        except (OSError, ValueError) as e:
            print("garbage: %s" % e, file=sys.stderr)
            return 2
        where = args.from_pcap
    else:
        template = wait_template(sock, dst_mac, time.monotonic() + args.timeout,
                                 args.outgoing)
        where = "%s within %.0f s" % (args.iface, args.timeout)
    if template is None:
        print("garbage: no RoCE v2 frame to %s in %s" % (args.dst_mac, where),
              file=sys.stderr)
        return 1
    sent, out = {}, []
    for k in kinds:
        for i in range(args.count):
            frame = craft(template, k, rng, i, spoof_ip, args.va_add)
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
