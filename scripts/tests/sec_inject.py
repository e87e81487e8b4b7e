#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Forged requests into a live RC connection, for security.sh.

  sec_inject.py --ifname n3 --dmac MAC --qpn QPN --per N \\
      --kind MODE,SRC,DST [--kind ...]

For each --kind (encapsulation v1, v2-4 or v2-6, source and destination
address or GID) sends N RDMA WRITE ONLY, N SEND ONLY and N RDMA READ
REQUEST packets to QPN, their PSNs spread evenly over the 24-bit space
from a random start, with valid ICRCs (roce_inject.py builds them,
independently of the driver).  The rkeys and addresses are random: the
forger knows neither.  Prints "sent K" with the number of frames sent.
"""

import argparse
import random
import socket
import struct

import roce_inject as ri

WRITE_ONLY, SEND_ONLY, READ_REQUEST = 0x0A, 0x04, 0x0C


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def requests(rng, qpn, per):
    """(opcode, transport bytes) of one kind's forged packets."""
    start = rng.randrange(1 << 24)
    out = []
    for op in (WRITE_ONLY, SEND_ONLY, READ_REQUEST):
        for i in range(per):
            psn = (start + (i << 24) // per) & 0xFFFFFF
            va, rkey = rng.randrange(1 << 47), rng.randrange(1 << 32)
            if op == WRITE_ONLY:
                tp = ri.bth(op, qpn, psn, 0) + reth(va, rkey, 8) + bytes(8)
            elif op == SEND_ONLY:
                tp = ri.bth(op, qpn, psn, 0) + bytes(8)
            else:
                tp = ri.bth(op, qpn, psn, 0) + reth(va, rkey, 64)
            out.append(tp)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ifname", required=True)
    ap.add_argument("--dmac", required=True)
    ap.add_argument("--qpn", type=lambda x: int(x, 0), required=True)
    ap.add_argument("--per", type=int, default=16)
    ap.add_argument("--kind", action="append", required=True,
                    help="MODE,SRC,DST")
    args = ap.parse_args()

    rng = random.SystemRandom()
    with open(f"/sys/class/net/{args.ifname}/address") as f:
        smac = ri.mac(f.read().strip())
    head = ri.mac(args.dmac) + smac
    frames = []
    for kind in args.kind:
        mode, src, dst = kind.split(",")
        for tp in requests(rng, args.qpn, args.per):
            etype, pkt = ri.roce_packet(mode, src, dst, tp)
            frames.append(head + struct.pack(">H", etype) + pkt)
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind((args.ifname, 0))
        for fr in frames:
            s.send(fr)
    print(f"sent {len(frames)}", flush=True)


if __name__ == "__main__":
    main()
