#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send hand-built RoCE frames out of an interface (AF_PACKET), for tests.

The frames are built here independently of the driver's wire layer, so a
frame the driver accepts is evidence that both agree with the spec, not
merely with each other.
"""

import argparse
import ipaddress
import socket
import struct
import zlib

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_IBOE = 0x8915
ROCE_V2_PORT = 4791


def icrc(net_hdr, v4):
    """ICRC over network header (+UDP) .. pad, with the variant fields set
    to ones as the spec's masking rules say; returned in wire order."""
    b = bytearray(net_hdr)
    if v4:
        b[1] = 0xFF                      # TOS
        b[8] = 0xFF                      # TTL
        b[10:12] = b"\xff\xff"           # header checksum
        udp = (b[0] & 0x0F) * 4
        b[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
        bth = udp + 8
    else:
        b[0] |= 0x0F                     # traffic class, flow label
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xFF                      # hop limit
        if b[6] == 17:                   # RoCEv2: UDP follows
            b[46:48] = b"\xff\xff"
            bth = 48
        else:                            # RoCEv1: BTH right after the GRH
            bth = 40
    b[bth + 4] = 0xFF                    # BTH FECN/BECN/reserved
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)))


def bth(opcode, dqpn, psn, pad, ackreq=True, pkey=0xFFFF):
    return struct.pack(">BBHII", opcode, (pad & 3) << 4, pkey,
                       dqpn & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))


def ipv4_csum(hdr):
    s = sum(struct.unpack(">10H", hdr))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def roce_packet(mode, src, dst, transport, sport=0xC000):
    """Network header + transport (BTH..pad) + ICRC; returns (ethertype, bytes)."""
    if mode == "v2-4":
        udp_len = 8 + len(transport) + 4
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + udp_len, 0x1234,
                         0x4000, 64, 17, 0,
                         ipaddress.IPv4Address(src).packed,
                         ipaddress.IPv4Address(dst).packed)
        ip = ip[:10] + struct.pack(">H", ipv4_csum(ip)) + ip[12:]
        udp = struct.pack(">HHHH", sport, ROCE_V2_PORT, udp_len, 0)
        hdr = ip + udp + transport
        return ETH_P_IP, hdr + icrc(hdr, True)
    if mode == "v2-6":
        udp_len = 8 + len(transport) + 4
        ip = struct.pack(">IHBB16s16s", 0x60000000, udp_len, 17, 64,
                         ipaddress.IPv6Address(src).packed,
                         ipaddress.IPv6Address(dst).packed)
        udp = struct.pack(">HHHH", sport, ROCE_V2_PORT, udp_len, 0)
        hdr = ip + udp + transport
        return ETH_P_IPV6, hdr + icrc(hdr, False)
    if mode == "v1":
        grh = struct.pack(">IHBB16s16s", 0x60000000, len(transport) + 4,
                          0x1B, 64,
                          ipaddress.IPv6Address(src).packed,
                          ipaddress.IPv6Address(dst).packed)
        hdr = grh + transport
        return ETH_P_IBOE, hdr + icrc(hdr, False)
    raise ValueError(mode)


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ifname", required=True)
    ap.add_argument("--dmac", required=True)
    ap.add_argument("--mode", choices=["v1", "v2-4", "v2-6"], required=True)
    ap.add_argument("--src", required=True, help="source IP or GID")
    ap.add_argument("--dst", required=True, help="destination IP or GID")
    ap.add_argument("--qpn", type=lambda x: int(x, 0), default=0x11)
    ap.add_argument("--opcode", type=lambda x: int(x, 0), default=0x04)
    ap.add_argument("--psn", type=int, default=1)
    ap.add_argument("--payload", type=int, default=8)
    ap.add_argument("--bad-icrc", action="store_true")
    ap.add_argument("--truncate", type=int, default=0,
                    help="drop this many bytes from the end of the packet")
    ap.add_argument("--count", type=int, default=1)
    args = ap.parse_args()

    with open(f"/sys/class/net/{args.ifname}/address") as f:
        smac = mac(f.read().strip())
    payload = bytes(i & 0xFF for i in range(args.payload))
    pad = -len(payload) % 4
    transport = bth(args.opcode, args.qpn, args.psn, pad) + payload + bytes(pad)
    etype, pkt = roce_packet(args.mode, args.src, args.dst, transport)
    if args.bad_icrc:
        pkt = pkt[:-1] + bytes([pkt[-1] ^ 0x5A])
    if args.truncate:
        pkt = pkt[:-args.truncate]
    frame = mac(args.dmac) + smac + struct.pack(">H", etype) + pkt

    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind((args.ifname, 0))
        for _ in range(args.count):
            s.send(frame)


if __name__ == "__main__":
    main()
