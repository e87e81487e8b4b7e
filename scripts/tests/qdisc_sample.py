#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample a qdisc's backlog over rtnetlink, cheaply, until told to stop.

    qdisc_sample.py DEV KIND PERIOD_MS STOPFILE

Every PERIOD_MS ms, prints "MS BACKLOG SENT" (MS: CLOCK_REALTIME in ms;
BACKLOG: bytes queued; SENT: bytes it has sent, all told) for the qdisc
of kind KIND ("red", say) on DEV in this network namespace, until
STOPFILE exists.  One process and one netlink dump per sample: a
fork of tc(8) per sample costs a TCG guest more CPU than the flows it
measures.
"""
import os
import socket
import struct
import sys
import time

RTM_GETQDISC = 38
RTM_NEWQDISC = 36
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
NLMSG_DONE = 3
NLMSG_ERROR = 2
TCA_KIND = 1
TCA_STATS2 = 7
TCA_STATS_BASIC = 1
TCA_STATS_QUEUE = 3


def attrs(buf):
    """(type, payload) of the rtattrs in buf."""
    off = 0
    while off + 4 <= len(buf):
        length, kind = struct.unpack_from('HH', buf, off)
        if length < 4:
            break
        yield kind & 0x3fff, buf[off + 4:off + length]
        off += (length + 3) & ~3


def sample(sock, ifindex, kind, seq):
    """(backlog, sent) in bytes of the KIND qdisc on ifindex, or None."""
    tcmsg = struct.pack('BxxxiIII', socket.AF_UNSPEC, ifindex, 0, 0, 0)
    hdr = struct.pack('IHHII', 16 + len(tcmsg), RTM_GETQDISC,
                      NLM_F_REQUEST | NLM_F_DUMP, seq, 0)
    sock.send(hdr + tcmsg)
    found = None
    while True:
        data = sock.recv(65536)
        off = 0
        while off + 16 <= len(data):
            length, mtype, _, _, _ = struct.unpack_from('IHHII', data, off)
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                return found
            if mtype == RTM_NEWQDISC:
                _, idx, _, _, _ = struct.unpack_from('BxxxiIII', data, off + 16)
                name = None
                q = None
                sent = None
                for t, p in attrs(data[off + 36:off + length]):
                    if t == TCA_KIND:
                        name = p.rstrip(b'\0').decode()
                    elif t == TCA_STATS2:
                        for t2, p2 in attrs(p):
                            if t2 == TCA_STATS_QUEUE:
                                # qlen, backlog, drops, requeues, overlimits
                                q = struct.unpack_from('IIIII', p2)[1]
                            elif t2 == TCA_STATS_BASIC:
                                # bytes, packets
                                sent = struct.unpack_from('QI', p2)[0]
                if idx == ifindex and name == kind and None not in (q, sent):
                    found = (q, sent)
            off += (length + 3) & ~3


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    dev, kind, period, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ifindex = socket.if_nametoindex(dev)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sock.bind((0, 0))
    seq = 0
    while not os.path.exists(stop):
        seq += 1
        s = sample(sock, ifindex, kind, seq)
        if s is not None:
            print(f'{int(time.time() * 1000)} {s[0]} {s[1]}', flush=True)
        time.sleep(period / 1000)
    return 0


if __name__ == '__main__':
    sys.exit(main())
