#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Malformed-packet injector for fuzz-pair.sh (python3 stdlib only).

  roce_fuzz.py counters --dev sroce0 --port P
      (guest b) serve the device's hw_counters and the kernel's IP/UDP
      drop counters as JSON over TCP, once the error counters are still.

  roce_fuzz.py fuzz --ifname eth0 --dir /shared ...
      (guest a) capture the victim's valid requests (fuzz_victim on QP 0),
      then inject class after class of malformed packets at guest b and
      check b's counters after each class; then seeded random mutations
      of the captured packets.  Prints "RESULT ok NAME" / "RESULT fail
      NAME: WHY" lines for the shell to turn into TAP, and "# " notes.

  roce_fuzz.py plan
      print how many RESULT lines a fuzz run that gets to its end prints:
      the same classes walked dry (made-up templates and victim QPs,
      nothing sent, no counters read), each check counted, not judged.

Frames are built with roce_inject.py's ICRC and header code, which is
independent of the driver.  No frame is ever addressed to a QPN outside
the victim's QPs and the QPNs below 0x11, which the driver never hands
out (other QPNs are drawn at random, so no other range is safe).  The
victim's QPs are connected over RoCE v2 / IPv4 (CONN): frames for them in
another encapsulation, or from another address, are a class of their own.
"""

import argparse
import contextlib
import errno
import io
import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_inject as ri  # noqa: E402

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
MTU = 1024                      # fuzz_victim's path MTU

# BTH and extension header lengths (IBTA vol 1, 9.2-9.4; FETH: 1.5 A16)
BTH, RETH, AETH, ATMETH, ATMACK, IMM, IETH, DETH, FETH = \
    12, 16, 4, 28, 8, 4, 4, 8, 4

# opcode: (name, extension headers after the BTH, payload allowed)
OPS = {
    0x00: ("RC_SEND_FIRST", [], True),
    0x01: ("RC_SEND_MIDDLE", [], True),
    0x02: ("RC_SEND_LAST", [], True),
    0x03: ("RC_SEND_LAST_IMM", [IMM], True),
    0x04: ("RC_SEND_ONLY", [], True),
    0x05: ("RC_SEND_ONLY_IMM", [IMM], True),
    0x06: ("RC_WRITE_FIRST", [RETH], True),
    0x07: ("RC_WRITE_MIDDLE", [], True),
    0x08: ("RC_WRITE_LAST", [], True),
    0x09: ("RC_WRITE_LAST_IMM", [IMM], True),
    0x0A: ("RC_WRITE_ONLY", [RETH], True),
    0x0B: ("RC_WRITE_ONLY_IMM", [RETH, IMM], True),
    0x0C: ("RC_READ_REQ", [RETH], False),
    0x0D: ("RC_READ_RESP_FIRST", [AETH], True),
    0x0E: ("RC_READ_RESP_MIDDLE", [], True),
    0x0F: ("RC_READ_RESP_LAST", [AETH], True),
    0x10: ("RC_READ_RESP_ONLY", [AETH], True),
    0x11: ("RC_ACK", [AETH], False),
    0x12: ("RC_ATOMIC_ACK", [AETH, ATMACK], False),
    0x13: ("RC_CMP_SWAP", [ATMETH], False),
    0x14: ("RC_FETCH_ADD", [ATMETH], False),
    0x16: ("RC_SEND_LAST_INV", [IETH], True),
    0x17: ("RC_SEND_ONLY_INV", [IETH], True),
    0x1C: ("RC_FLUSH", [FETH, RETH], False),
    0x1D: ("RC_ATOMIC_WRITE", [RETH], True),
    0x64: ("UD_SEND_ONLY", [DETH], True),
    0x65: ("UD_SEND_ONLY_IMM", [DETH, IMM], True),
    0x81: ("CNP", [16], False),
}
# UC: the RC layouts of 0x00-0x0B, 0x20 up
for _op in range(0x0C):
    _n, _h, _p = OPS[_op]
    OPS[0x20 + _op] = ("UC" + _n[2:], _h, _p)

# Guest b's hw_counters that valid traffic (the bystander) never moves;
# the counter server waits until these are still before answering.
QUIET = ["rx_header_errors", "rx_icrc_errors", "rx_unknown_qp",
         "rx_wrong_transport", "rx_qp_state_drops", "rx_bad_pkey",
         "rx_bad_qkey", "rx_unexpected_responses", "rx_cnp_packets",
         "rx_wrong_peer", "error_nak_sent", "qp_errors"]
IP_KEYS = ["Ip.InHdrErrors", "Ip.InAddrErrors", "IpExt.InTruncatedPkts",
           "Udp.InErrors", "Ip6InHdrErrors", "Ip6InTruncatedPkts",
           "Udp6InErrors", "Ip6InAddrErrors"]


def hdr_len(op):
    return BTH + sum(OPS[op][1])


def note(*a):
    print("#", *a, flush=True)


# --- guest b: counters -----------------------------------------------------

def read_counters(dev):
    d = {}
    base = f"/sys/class/infiniband/{dev}/ports/1/hw_counters"
    for name in os.listdir(base):
        try:
            with open(os.path.join(base, name)) as f:
                d[name] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        with open(path) as f:
            lines = f.read().splitlines()
        for head, vals in zip(lines[0::2], lines[1::2]):
            keys = head.split()
            for k, v in zip(keys[1:], vals.split()[1:]):
                d[keys[0].rstrip(":") + "." + k] = int(v)
    with open("/proc/net/snmp6") as f:
        for line in f:
            k, v = line.split()
            d[k] = int(v)
    return d


def serve_counters(args):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", args.port))
    srv.listen(4)
    if args.ready:
        # the fuzzer waits for this: a loaded debug guest can take longer
        # to start Python than guest a takes to capture its templates
        open(args.ready, "w").close()
    while True:
        conn, _ = srv.accept()
        # a client that gave up (a slow guest) must not end the server:
        # it asks again on a new connection
        try:
            with conn:
                if not serve_one(conn, args.dev):
                    return
        except OSError as e:
            print(f"counters: client went away: {e}", file=sys.stderr,
                  flush=True)


def serve_one(conn, dev):
    """Answer one request on @conn; False when told to quit."""
    cmd = conn.makefile().readline().strip()
    if cmd == "quit":
        return False
    # packets may still be on their way: wait until the counters that only
    # malformed input moves hold still for a while
    cur = read_counters(dev)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        time.sleep(0.3)
        last, cur = cur, read_counters(dev)
        if all(cur.get(k) == last.get(k) for k in QUIET + IP_KEYS):
            break
    conn.sendall(json.dumps(cur).encode() + b"\n")
    return True


# --- guest a: frames -------------------------------------------------------

def set_bth(tp, opcode=None, qpn=None, psn=None, pkey=None, tver=None,
            pad=None, ackreq=None):
    b = bytearray(tp)
    if opcode is not None:
        b[0] = opcode
    if pad is not None:
        b[1] = (b[1] & ~0x30) | ((pad & 3) << 4)
    if tver is not None:
        b[1] = (b[1] & 0xF0) | (tver & 0xF)
    if pkey is not None:
        b[2:4] = struct.pack(">H", pkey)
    if qpn is not None:
        b[5:8] = struct.pack(">I", qpn & 0xFFFFFF)[1:]
    if psn is not None:
        b[9:12] = struct.pack(">I", psn & 0xFFFFFF)[1:]
    if ackreq is not None:
        b[8] = (b[8] & 0x7F) | (0x80 if ackreq else 0)
    return bytes(b)


def transport(op, qpn, psn, payload=b"", ext=None, pad=None):
    """BTH + extension headers (zeros unless @ext) + payload + pad."""
    n = hdr_len(op) - BTH
    ext = (ext or b"")[:n].ljust(n, b"\0")
    p = -len(payload) % 4 if pad is None else pad
    return ri.bth(op, qpn, psn, p) + ext + payload + bytes(-len(payload) % 4)


def reth(va, rkey, length):
    return struct.pack(">QII", va & (2**64 - 1), rkey & 0xFFFFFFFF,
                       length & 0xFFFFFFFF)


def atmeth(va, rkey, swap_add=1, cmp=0):
    return struct.pack(">QIQQ", va & (2**64 - 1), rkey, swap_add, cmp)


class Target:
    """Where frames go: b's MAC and addresses for each encapsulation."""

    def __init__(self, args, dry=False):
        self.dry = dry
        self.ifname = args.ifname
        self.dmac = ri.mac(args.dmac)
        self.addr = {"v2-4": (args.src4, args.dst4),
                     "v2-6": (args.src6, args.dst6),
                     "v1": (args.src6, args.dst6)}
        self.sent = 0
        if dry:
            self.smac = bytes(6)
            return
        with open(f"/sys/class/net/{args.ifname}/address") as f:
            self.smac = ri.mac(f.read().strip())
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((args.ifname, 0))

    def net(self, mode, tp, ip_len=None, udp_len=None, paylen=None,
            icrc=True, bad_icrc=False, cut=None, src=None, dst=None):
        """The network packet (no Ethernet header) carrying @tp.  Length
        fields and addresses may be overridden; the ICRC is computed over
        the packet as it will be sent, unless @icrc is false (then zeros);
        @cut drops bytes off the end afterwards."""
        src = src or self.addr[mode][0]
        dst = dst or self.addr[mode][1]
        # roce_packet() wants a whole BTH; the headers are what is taken
        etype, pkt = ri.roce_packet(mode, src, dst, tp.ljust(BTH, b"\0"))
        nhl = NHL[mode]
        tl = len(tp) + 4
        b = bytearray(pkt[:nhl]) + tp + bytes(4)
        if mode == "v2-4":
            b[2:4] = struct.pack(">H", (ip_len if ip_len is not None
                                        else 28 + tl) & 0xFFFF)
            b[24:26] = struct.pack(">H", (udp_len if udp_len is not None
                                          else 8 + tl) & 0xFFFF)
            b[10:12] = b"\0\0"
            b[10:12] = struct.pack(">H", ri.ipv4_csum(bytes(b[:20])))
        elif mode == "v2-6":
            b[4:6] = struct.pack(">H", (paylen if paylen is not None
                                        else 8 + tl) & 0xFFFF)
            b[44:46] = struct.pack(">H", (udp_len if udp_len is not None
                                          else 8 + tl) & 0xFFFF)
        else:
            b[4:6] = struct.pack(">H", (paylen if paylen is not None
                                        else tl) & 0xFFFF)
        body = bytes(b[:-4])
        crc = safe_icrc(body, mode) if icrc else bytes(4)
        if bad_icrc:
            crc = bytes([crc[0] ^ 0x5A]) + crc[1:]
        out = body + crc
        if cut is not None:
            out = out[:cut]
        return etype, out

    def frame(self, etype, pkt):
        return self.dmac + self.smac + struct.pack(">H", etype) + pkt

    def send(self, frames):
        if self.dry:
            return
        for i, f in enumerate(frames):
            for _ in range(100):
                try:
                    self.sock.send(f)
                    break
                except BlockingIOError:
                    time.sleep(0.01)
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise
                    time.sleep(0.01)
            self.sent += 1
            # b is a slow emulated guest: no burst it could drop
            if i % 16 == 15:
                time.sleep(0.004)


NHL = {"v2-4": 28, "v2-6": 48, "v1": 40}


def safe_icrc(body, mode):
    """roce_inject's ICRC of @body; one that is too short to hold the
    fields the ICRC masks gets a value anyway (the driver never reaches
    its ICRC check for it)."""
    need = NHL[mode] + 5
    if mode == "v2-4" and body:
        need = (body[0] & 0x0F) * 4 + 8 + 5
    if len(body) < need:
        body = bytes(body).ljust(need, b"\0")
    try:
        return ri.icrc(bytes(body), mode == "v2-4")
    except (IndexError, struct.error):
        return bytes(4)


def bth_off_as_parsed(mode, pkt):
    """Where the driver will read the BTH of network packet @pkt."""
    if mode == "v2-4":
        return (pkt[0] & 0x0F) * 4 + 8 if pkt else None
    return 48 if mode == "v2-6" else 40


def parse_captured(frame, dmac, qpn):
    """(mode, transport without ICRC) of an outgoing RoCE frame of @qpn."""
    if len(frame) < 14 or frame[:6] != dmac:
        return None
    etype = struct.unpack(">H", frame[12:14])[0]
    nh = frame[14:]
    if etype == ri.ETH_P_IP and len(nh) >= 28 and nh[9] == 17:
        ihl = (nh[0] & 0xF) * 4
        if struct.unpack(">H", nh[ihl + 2:ihl + 4])[0] != ri.ROCE_V2_PORT:
            return None
        mode, off, end = "v2-4", ihl + 8, struct.unpack(">H", nh[2:4])[0]
    elif etype == ri.ETH_P_IPV6 and len(nh) >= 48 and nh[6] == 17:
        if struct.unpack(">H", nh[42:44])[0] != ri.ROCE_V2_PORT:
            return None
        mode, off, end = "v2-6", 48, 40 + struct.unpack(">H", nh[4:6])[0]
    elif etype == ri.ETH_P_IBOE and len(nh) >= 40:
        mode, off, end = "v1", 40, 40 + struct.unpack(">H", nh[4:6])[0]
    else:
        return None
    tp = nh[off:end - 4]
    if len(tp) < BTH or struct.unpack(">I", tp[4:8])[0] & 0xFFFFFF != qpn:
        return None
    return mode, tp


def read_victim(path):
    info = {"qp": {}}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "mr":
                info["va"], info["rkey"] = int(w[1]), int(w[2])
                info["len"], info["target"] = int(w[3]), int(w[4])
            elif w[0] == "qp":
                info["qp"][int(w[1])] = (int(w[2]), int(w[3]))
    return info


class Fuzzer:
    def __init__(self, args, dry=False):
        self.args = args
        self.dry = dry
        self.checks = 0
        self.t = Target(args, dry)
        self.results = []
        self.per_class = {}
        self.dir = args.dir
        self.rng = random.Random(args.seed)
        self.last = None

    # -- results and counters --

    def result(self, ok, name, why=""):
        self.checks += 1
        if self.dry:
            return
        print(f"RESULT {'ok' if ok else 'fail'} fuzz: {name}"
              + ("" if ok else f": {why}"), flush=True)

    def counters(self):
        if self.dry:
            return {}
        why = None
        for _ in range(60):
            try:
                with socket.create_connection((self.args.counters_host,
                                               self.args.counters_port),
                                              timeout=30) as s:
                    s.sendall(b"get\n")
                    return json.loads(s.makefile().readline())
            except (OSError, ValueError) as e:
                why = e
                time.sleep(0.5)
        raise SystemExit(f"no counters from guest b: {why!r}")

    def run_class(self, name, frames, expect, still=()):
        """Send @frames; each of @expect, (counters, minimum), must have
        moved by at least minimum in sum; each of @still not at all."""
        # one class's "after" is the next one's "before"
        before = self.last or self.counters()
        self.t.send(frames)
        after = self.last = self.counters()
        self.per_class[name] = self.per_class.get(name, 0) + len(frames)
        moved = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0) and
                 (k in QUIET or k in IP_KEYS or k.endswith("nak_sent") or
                  k in ("rx_duplicate_requests", "rx_out_of_sequence"))}
        note(f"{name}: {len(frames)} sent; b moved {moved}")
        for keys, want in expect:
            got = sum(after.get(k, 0) - before.get(k, 0) for k in keys)
            self.result(got >= want,
                        f"{name}: {'+'.join(keys)} moved by {want}+",
                        f"moved by {got}, want at least {want}")
        for k in still:
            got = after.get(k, 0) - before.get(k, 0)
            self.result(got == 0, f"{name}: {k} unchanged",
                        f"moved by {got}")

    # -- capture --

    def sniff(self):
        """The victim's QP 0 requests as sent, by PSN, and the victim's
        word on its valid traffic."""
        cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                            socket.htons(ETH_P_ALL))
        cap.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        cap.bind((self.args.ifname, 0))
        cap.settimeout(0.2)
        open(os.path.join(self.dir, "fuzz.capture-ready"), "w").close()
        done = os.path.join(self.dir, "victim.traffic-done")
        qpn0 = self.vb["qp"][0][0]
        got, end, grace = {}, time.monotonic() + 300, None
        while time.monotonic() < end:
            if grace is None and os.path.exists(done):
                grace = time.monotonic() + 1.0
            if grace is not None and time.monotonic() > grace:
                break
            try:
                data, addr = cap.recvfrom(65536)
            except socket.timeout:
                continue
            if addr[2] != PACKET_OUTGOING:
                continue
            r = parse_captured(data, self.t.dmac, qpn0)
            if r:
                psn = struct.unpack(">I", r[1][8:12])[0] & 0xFFFFFF
                got.setdefault(psn, r)
        cap.close()
        with open(done) as f:
            return got, f.read().strip()

    def made_up(self):
        """sniff()'s answer for a dry run: one of each wanted request."""
        qpn0 = self.vb["qp"][0][0]
        return {psn: ("v2-4", transport(op, qpn0, psn, bytes(16)
                                        if OPS[op][2] else b""))
                for psn, op in enumerate(WANT)}, "ok"

    def capture(self):
        qpn0 = self.vb["qp"][0][0]
        got, status = self.made_up() if self.dry else self.sniff()
        self.result(status == "ok", "victim's valid traffic completed",
                    status)
        self.tpl = {}
        epsn = self.va["qp"][0][1]
        # A READ whose responses were partly lost, or came late, is asked
        # again for the missing ones only, under the PSN of the first of
        # them: inside the first request's span, a resend and not a 13th
        # request (a starved guest's ACK timer made one in a CI run).
        resumed, start = 0, epsn
        for psn, (mode, tp) in sorted(got.items(),
                                      key=lambda i: ri_psn_diff(i[0], start)):
            op = tp[0]
            if ri_psn_diff(psn, epsn) < 0:
                resumed += 1
                continue
            self.tpl.setdefault(op, tp)
            n = 1
            if op == 0x0C:
                ln = struct.unpack(">I", tp[BTH + 12:BTH + 16])[0]
                n = max(1, -(-ln // MTU))
            epsn = (psn + n) & 0xFFFFFF
        self.epsn0 = epsn
        names = sorted(OPS[op][0] for op in self.tpl if op in OPS)
        note(f"captured {len(got)} request packets of QP {qpn0:#x} "
             f"({mode if got else '-'}): {', '.join(names)}; "
             f"{resumed} of them resumed READs; next PSN {epsn:#x}")
        missing = sorted(OPS[o][0] for o in WANT - set(self.tpl))
        self.result(not missing and len(got) - resumed == 12,
                    "captured the victim's 12 request packets",
                    f"{len(got)} captured, {resumed} resumed READs, "
                    f"missing {missing}")
        return not missing

    # -- the classes --

    def qpn(self, i):
        return self.vb["qp"][i][0]

    def fresh(self):
        """A victim QP nothing was sent to yet, and its expected PSN."""
        i = self.next_fresh
        self.next_fresh += 1
        if i >= len(self.vb["qp"]):
            raise SystemExit("out of victim QPs: raise fuzz_victim -n")
        return self.qpn(i), self.va["qp"][i][1]

    def nets(self, tp, **kw):
        return [self.t.frame(*self.t.net(m, tp, **kw)) for m in MODES]

    def conn(self, tp, **kw):
        """@tp as the victim's peer sends it: what reaches the QP."""
        return [self.t.frame(*self.t.net(CONN, tp, **kw))]

    def classes(self):
        q0 = self.qpn(0)
        va, rkey, mrlen = self.vb["va"], self.vb["rkey"], self.vb["len"]
        tgt = va + self.vb["target"]
        wf = set_bth(self.tpl[0x06], qpn=q0, psn=self.epsn0)
        cs = set_bth(self.tpl[0x13], qpn=q0, psn=self.epsn0)
        N = self.args.first_bytes

        # truncation: RoCEv1 frames cut anywhere fail the driver's parser;
        # RoCEv2 frames cut short never get past b's IP layer
        for m in MODES:
            frames = []
            for tp in (wf, cs):
                _, full = self.t.net(m, tp)
                nhl = NHL[m]
                bounds = {nhl - 8 if m != "v1" else 0, nhl, nhl + BTH,
                          nhl + hdr_len(tp[0]), len(full) - 4, len(full) - 1}
                cuts = sorted(set(range(min(N, len(full)))) | bounds)
                frames += [self.t.frame(*self.t.net(m, tp, cut=c))
                           for c in cuts if c < len(full)]
            if m == "v1":
                exp = [(["rx_header_errors"], len(frames))]
            elif m == "v2-4":
                exp = [(["Ip.InHdrErrors", "IpExt.InTruncatedPkts"],
                        len(frames))]
            else:
                exp = [(["Ip6InHdrErrors", "Ip6InTruncatedPkts"],
                        len(frames))]
            self.run_class(f"truncated frames {m}", frames, exp)

        # truncation with the length fields (and ICRC) made to agree:
        # every cut inside the headers, or leaving a partial word
        frames = []
        for tp in (wf, cs):
            h = hdr_len(tp[0])
            for k in range(len(tp)):
                if k < h or (k - h) % 4:
                    frames += self.nets(tp[:k])
        self.run_class("truncated transport, lengths agreeing", frames,
                       [(["rx_header_errors"], len(frames))],
                       still=["error_nak_sent"])

        frames = []
        for op, tp in sorted(self.tpl.items()):
            frames += self.nets(set_bth(tp, qpn=q0), bad_icrc=True)
            frames += self.nets(set_bth(tp, qpn=q0), icrc=False)
        self.run_class("bad ICRC", frames,
                       [(["rx_icrc_errors"], len(frames))])

        # length fields that lie; which layer drops what is fixed by
        # the kernel's IP and UDP receive code, and for what passes it
        # by the driver's parser
        ln = len(wf) + 4
        lies = {
            "UDP length short": ("v2-4", {"udp_len": 8 + ln - 4},
                                 ["rx_header_errors"]),
            "UDP length long": ("v2-4", {"udp_len": 8 + ln + 4},
                                ["Udp.InErrors"]),
            "UDP length 8": ("v2-4", {"udp_len": 8}, ["rx_header_errors"]),
            "IPv4 total length long": ("v2-4", {"ip_len": 28 + ln + 4},
                                       ["IpExt.InTruncatedPkts"]),
            "IPv4 total length short": ("v2-4", {"ip_len": 28 + ln - 4},
                                        ["Udp.InErrors"]),
            "UDP length short v6": ("v2-6", {"udp_len": 8 + ln - 4},
                                    ["rx_header_errors"]),
            "UDP length long v6": ("v2-6", {"udp_len": 8 + ln + 4},
                                   ["Udp6InErrors"]),
            "IPv6 payload length long": ("v2-6", {"paylen": 8 + ln + 4},
                                         ["Ip6InTruncatedPkts"]),
            "IPv6 payload length short": ("v2-6", {"paylen": 8 + ln - 4},
                                          ["Udp6InErrors"]),
            "GRH payload length long": ("v1", {"paylen": ln + 4},
                                        ["rx_header_errors"]),
            "GRH payload length odd": ("v1", {"paylen": ln - 1},
                                       ["rx_header_errors"]),
            "GRH payload length tiny": ("v1", {"paylen": 8},
                                        ["rx_header_errors"]),
            "GRH payload length 4 short": ("v1", {"paylen": ln - 4},
                                           ["rx_icrc_errors"]),
        }
        t2 = set_bth(self.tpl[0x04], qpn=q0)
        l2 = len(t2) + 4
        for name, (m, kw, keys) in lies.items():
            # the same lie on two packets of different lengths
            kw2 = {k: v - ln + l2 if v > 8 else v for k, v in kw.items()}
            frames = [self.t.frame(*self.t.net(m, wf, **kw)),
                      self.t.frame(*self.t.net(m, t2, **kw2))]
            self.run_class(f"bad lengths: {name}", frames,
                           [(keys, len(frames))])

        # opcodes the spec reserves, and RD and XRC (no such QPs here)
        bad_ops = [o for o in range(256) if o not in OPS]
        frames = []
        for o in bad_ops:
            frames += self.nets(ri.bth(o, q0, self.epsn0, 0) + bytes(16))
        self.run_class(f"unknown and reserved opcodes ({len(bad_ops)})",
                       frames, [(["rx_header_errors"], len(frames))])

        frames = []
        for op in [o for o in OPS if 0x20 <= o <= 0x2B or o in (0x64, 0x65)]:
            ext = struct.pack(">II", 0x11111111, 7) if op >= 0x64 else None
            frames += self.nets(transport(op, q0, self.epsn0, bytes(16)
                                          if OPS[op][2] else b"", ext))
        frames += self.nets(set_bth(wf, qpn=0xFFFFFF))
        self.run_class("UC/UD opcodes at an RC QP, RC at the multicast QPN",
                       frames, [(["rx_wrong_transport"], len(frames))])

        frames = []
        for op in (0x0D, 0x0E, 0x0F, 0x10, 0x12):
            frames += self.conn(transport(op, q0, self.epsn0, bytes(MTU)
                                          if OPS[op][2] else b""))
        self.run_class("responses to a QP that asked nothing", frames,
                       [(["rx_unexpected_responses"], len(frames))])

        frames = []
        for pk in (0x0000, 0x1234, 0x8001, 0x7FFE):
            frames += self.nets(set_bth(wf, pkey=pk))
        self.run_class("foreign P_Keys", frames,
                       [(["rx_bad_pkey"], len(frames))])

        # the connection's QPN and next PSN, but not from its peer: the
        # peer's addresses over the other encapsulations, and a stranger
        # in the peer's subnet; never answered, never seen by the QP
        stranger = self.args.src4.rsplit(".", 1)[0] + ".250"
        mapped = [f"::ffff:{a}" for a in (self.args.src4, self.args.dst4)]
        frames = []
        for tp in (wf, cs, transport(0x0C, q0, self.epsn0, b"",
                                     reth(tgt, rkey, 8))):
            frames += [self.t.frame(*self.t.net(m, tp))
                       for m in MODES if m != CONN]
            frames.append(self.t.frame(*self.t.net(CONN, tp,
                                                   src=stranger)))
            frames.append(self.t.frame(*self.t.net("v1", tp, src=mapped[0],
                                                   dst=mapped[1])))
        self.run_class("the connection's QP, not from its peer", frames,
                       [(["rx_wrong_peer"], len(frames))],
                       still=["error_nak_sent", "seq_nak_sent",
                              "rx_duplicate_requests",
                              "rx_out_of_sequence"])

        frames = []
        for tp in (set_bth(wf, tver=1), set_bth(wf, tver=15),
                   transport(0x04, q0, self.epsn0, b"", pad=3),
                   transport(0x0C, q0, self.epsn0, b"", reth(tgt, rkey, 8))
                   + bytes(4),
                   transport(0x11, q0, self.epsn0) + bytes(8)):
            frames += self.nets(tp)
        self.run_class("bad TVer, pad count, payload on payloadless opcodes",
                       frames, [(["rx_header_errors"], len(frames))])

        qpns = [0] + list(range(2, 0x11))
        frames = []
        for q in qpns:
            frames += self.nets(set_bth(wf, qpn=q))
        self.run_class("nonexistent QPNs", frames,
                       [(["rx_unknown_qp"], len(frames))])

        frames = self.nets(transport(0x81, q0, 0))
        self.run_class("CNPs", frames, [(["rx_cnp_packets"], len(frames))])

        # sequence: ahead of the window draws one NAK per gap (a packet
        # at ePSN first closes the previous gap), behind is a duplicate
        for m in (CONN,):
            wz = transport(0x0A, q0, self.epsn0, b"",
                           reth(0xDEAD0000, 0x1234567, 0))
            frames = [self.t.frame(*self.t.net(m, wz))]
            self.epsn0 = (self.epsn0 + 1) & 0xFFFFFF
            for d in (1, 2, 100, 1 << 22, (1 << 23) - 1):
                frames.append(self.t.frame(*self.t.net(
                    m, set_bth(wf, psn=self.epsn0 + d))))
            self.run_class(f"PSNs ahead of the window {m}", frames,
                           [(["rx_out_of_sequence"], len(frames) - 1),
                            (["seq_nak_sent"], 1)],
                           still=["error_nak_sent"])
        frames = []
        for d in (1, 2, 1000, 1 << 22, (1 << 23) - 1):
            for tp in (self.tpl[0x0A] if 0x0A in self.tpl else wf,
                       self.tpl[0x04], self.tpl[0x0C]):
                frames += self.conn(set_bth(tp, qpn=q0,
                                            psn=self.epsn0 - d))
        self.run_class("PSNs behind the window (duplicates)", frames,
                       [(["rx_duplicate_requests"], len(frames))],
                       still=["error_nak_sent"])

        # zero-length WRITE and READ name no memory: any rkey and VA go;
        # then a duplicate proves QP 0 still takes packets
        frames = []
        for op in (0x0A, 0x0C):
            tp = transport(op, q0, self.epsn0, b"",
                           reth(2**64 - 8, 0xBAD0BAD, 0))
            frames += self.conn(tp)
            self.epsn0 = (self.epsn0 + 1) & 0xFFFFFF
        dup = set_bth(self.tpl[0x04], qpn=q0, psn=self.epsn0 - 1)
        frames += self.conn(dup)
        self.run_class("zero-length WRITE/READ with any rkey and VA", frames,
                       [(["rx_duplicate_requests"], 1)],
                       still=["error_nak_sent"])

        # requests that end the connection: each to a QP of its own, at
        # its expected PSN, draws exactly one NAK
        def fatal(build):
            q, p = self.fresh()
            return self.conn(build(q, p))

        def w(va_, rk, ln_, pay=bytes(16), op=0x0A):
            return lambda q, p: transport(op, q, p, pay, reth(va_, rk, ln_))

        def rd(va_, rk, ln_):
            return lambda q, p: transport(0x0C, q, p, b"", reth(va_, rk, ln_))

        def at(va_, rk, op=0x14):
            return lambda q, p: transport(op, q, p, b"", atmeth(va_, rk))

        bad_rkey = rkey ^ 0x5A5A00
        cases = {
            "WRITE with an invalid rkey": w(tgt, bad_rkey, 16),
            "READ with an invalid rkey": rd(tgt, bad_rkey, 64),
            "atomic with an invalid rkey": at(tgt, bad_rkey),
            "WRITE past the MR's end": w(va + mrlen - 8, rkey, 16),
            "READ past the MR's end": rd(va + mrlen - 8, rkey, 64),
            "atomic past the MR's end": at(va + mrlen, rkey),
            "WRITE with VA+len wrapping 2^64": w(2**64 - 8, rkey, 16),
            "READ with VA+len wrapping 2^64": rd(2**64 - 16, rkey, 4096),
            "misaligned atomic": at(tgt + 4, rkey, 0x13),
            "READ of 2^31 bytes": rd(tgt, rkey, 1 << 31),
            "READ of 2^32-1 bytes": rd(tgt, rkey, 2**32 - 1),
            "WRITE of 2^31 bytes": w(tgt, rkey, 1 << 31),
            "WRITE of 2^32-1 bytes": w(tgt, rkey, 2**32 - 1),
            "WRITE of 0 bytes with a payload": w(tgt, rkey, 0),
            "WRITE payload longer than its DMA length": w(tgt, rkey, 8,
                                                          bytes(64)),
            "SEND MIDDLE without FIRST":
                lambda q, p: transport(0x01, q, p, bytes(MTU)),
            "WRITE LAST without FIRST":
                lambda q, p: transport(0x08, q, p, bytes(16)),
            "SEND FIRST shorter than the MTU":
                lambda q, p: transport(0x00, q, p, bytes(16)),
            "FLUSH (not offered)":
                lambda q, p: transport(0x1C, q, p, b"",
                                       bytes(4) + reth(tgt, rkey, 64)),
            "misaligned ATOMIC WRITE": w(tgt + 4, rkey, 8, bytes(8), 0x1D),
            "ATOMIC WRITE of 16 bytes": w(tgt, rkey, 16, bytes(16), 0x1D),
            "ATOMIC WRITE of 8 bytes with 4 of payload":
                w(tgt, rkey, 8, bytes(4), 0x1D),
            "ATOMIC WRITE with an invalid rkey":
                w(tgt, bad_rkey, 8, bytes(8), 0x1D),
        }
        for name, build in cases.items():
            frames = fatal(build)
            self.run_class(name, frames,
                           [(["error_nak_sent"], len(frames)),
                            (["qp_errors"], len(frames))])

    # -- random mutations --

    def protected(self, mode):
        """Bytes of the network packet a mutation leaves alone: those
        that would make it something else than RoCE (another protocol or
        port, which could hit the bystander's TCP connection)."""
        return {"v2-4": {9, 22, 23}, "v2-6": {6, 42, 43}, "v1": {6}}[mode]

    def allowed_qpn(self, q):
        return q in self.victims or q == 0 or 2 <= q <= 0x10

    def mutate(self, count):
        rng = self.rng
        tpls = sorted(self.tpl.items())
        pool = [self.qpn(i) for i in range(self.next_fresh,
                                           len(self.vb["qp"]))]
        pool_psn = {self.qpn(i): self.va["qp"][i][1]
                    for i in range(self.next_fresh, len(self.vb["qp"]))}
        pool.append(self.qpn(0))
        pool_psn[self.qpn(0)] = self.epsn0
        stats = {"sent": 0, "icrc recomputed": 0, "retargeted QPN": 0}
        frames = []
        for _ in range(count):
            op, tp = tpls[rng.randrange(len(tpls))]
            m = MODES[rng.randrange(3)]
            q = pool[rng.randrange(len(pool))]
            tp = set_bth(tp, qpn=q, psn=pool_psn[q] + rng.choice(
                [0, 0, 0, 1, -1, rng.randrange(1 << 24)]))
            b = bytearray(tp)
            # field-aware changes of the transport first
            for _ in range(rng.choice([0, 1, 1, 2])):
                pos = rng.randrange(len(b))
                b[pos:pos + 4] = rng.choice([b"\xff\xff\xff\xff", bytes(4),
                                             b"\x80\0\0\0", b"\x7f\xff\xff\xff",
                                             rng.randbytes(4)])[:len(b) - pos]
            if rng.random() < 0.3:
                b[0] = rng.randrange(256)
            tp = bytes(b)
            kw = {}
            if rng.random() < 0.1:
                kw[{"v2-4": "ip_len", "v2-6": "paylen",
                    "v1": "paylen"}[m]] = rng.randrange(65536)
            if rng.random() < 0.1 and m != "v1":
                kw["udp_len"] = rng.randrange(65536)
            etype, pkt = self.t.net(m, tp, **kw)
            pkt = bytearray(pkt)
            prot = self.protected(m)
            for _ in range(rng.choice([0, 1, 1, 2, 3])):
                pos = rng.randrange(len(pkt))
                if pos not in prot:
                    if rng.random() < 0.5:
                        pkt[pos] ^= 1 << rng.randrange(8)
                    else:
                        pkt[pos] = rng.randrange(256)
            if rng.random() < 0.1:
                pkt = pkt[:rng.randrange(len(pkt))]
            elif rng.random() < 0.05:
                pkt += rng.randbytes(rng.randrange(1, 64))
            # never the bystander: the QPN the driver will read must be a
            # victim's or one no QP of this run can have
            off = bth_off_as_parsed(m, pkt)
            if off is not None and off + 8 <= len(pkt):
                qq = int.from_bytes(pkt[off + 5:off + 8], "big")
                if not self.allowed_qpn(qq):
                    pkt[off + 5:off + 8] = rng.randrange(
                        2, 0x11).to_bytes(3, "big")
                    stats["retargeted QPN"] += 1
            elif off is not None and len(pkt) > off + 5:
                # too short for a whole BTH: never dispatched, but cut the
                # QPN away entirely to be sure
                pkt = pkt[:off + 5]
            if rng.random() < 0.8 and len(pkt) >= 4:
                if m == "v2-4" and len(pkt) >= 20:
                    pkt[10:12] = b"\0\0"
                    pkt[10:12] = struct.pack(">H",
                                             ri.ipv4_csum(bytes(pkt[:20])))
                pkt[-4:] = safe_icrc(bytes(pkt[:-4]), m)
                stats["icrc recomputed"] += 1
            frames.append(self.t.frame(etype, bytes(pkt)))
            stats["sent"] += 1
        before = self.last or self.counters()
        self.t.send(frames)
        after = self.last = self.counters()
        self.per_class["random mutations"] = len(frames)
        moved = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0) and
                 (k in QUIET or k in IP_KEYS or k.endswith("_sent") or
                  k.startswith("rx_"))}
        note(f"random mutations: {stats}; b moved {moved}")
        # ICRC recomputation must let mutants past the ICRC check
        deeper = sum(after.get(k, 0) - before.get(k, 0) for k in
                     ("rx_unknown_qp", "rx_wrong_transport",
                      "rx_qp_state_drops", "error_nak_sent",
                      "rx_duplicate_requests", "rx_out_of_sequence",
                      "rx_unexpected_responses", "rx_bad_pkey",
                      "rx_wrong_peer"))
        self.result(deeper > 0, "random mutations reach past the ICRC check",
                    "no counter past the ICRC check moved")

    def plan(self):
        """How many checks run() reports when it gets to its end."""
        n = DRY_QPS
        self.va = {"qp": {i: (0x100 + i, 0) for i in range(n)}}
        self.vb = {"qp": {i: (0x200 + i, 0) for i in range(n)},
                   "va": 0x10000, "rkey": 0x1234, "len": 1 << 16,
                   "target": 4096}
        self.victims = {q for q, _ in self.vb["qp"].values()}
        self.capture()
        self.next_fresh = 1
        self.classes()
        self.mutate(0)
        return self.checks

    def run(self):
        self.va = read_victim(os.path.join(self.dir, "victim.a"))
        self.vb = read_victim(os.path.join(self.dir, "victim.b"))
        self.victims = {q for q, _ in self.vb["qp"].values()}
        note(f"seed {self.args.seed}, {self.args.count} random mutations; "
             f"victim QPs on b {min(self.victims):#x}..{max(self.victims):#x}")
        if not self.capture():
            return
        open(os.path.join(self.dir, "fuzz.captured"), "w").close()
        # the bystander must be running while we inject
        end = time.monotonic() + 120
        while not os.path.exists(os.path.join(self.dir, "bystander.running")):
            if time.monotonic() > end:
                self.result(False, "bystander started", "not within 120 s")
                return
            time.sleep(0.2)
        self.next_fresh = 1
        t0 = time.monotonic()
        self.classes()
        self.mutate(self.args.count)
        total = sum(self.per_class.values())
        note(f"sent {total} malformed packets in {time.monotonic() - t0:.0f} s"
             f" ({self.t.sent} frames in all), seed {self.args.seed}")
        for k, v in self.per_class.items():
            note(f"  {v:6d}  {k}")
        print(f"TOTAL {total}", flush=True)


MODES = ["v2-4", "v2-6", "v1"]
CONN = "v2-4"                   # how fuzz_victim connects its QPs
# the request opcodes fuzz_victim's QP 0 sends, one packet each
WANT = {0x04, 0x00, 0x01, 0x02, 0x05, 0x06, 0x07, 0x08, 0x0B, 0x0C, 0x13,
        0x14}
# a dry run's victim QPs: more than the classes use
DRY_QPS = 256


def ri_psn_diff(a, b):
    d = (a - b) & 0xFFFFFF
    return d - (1 << 24) if d & 0x800000 else d


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("counters")
    c.add_argument("--dev", required=True)
    c.add_argument("--port", type=int, default=18700)
    c.add_argument("--ready", help="a file to create once listening")
    f = sub.add_parser("fuzz")
    f.add_argument("--ifname", required=True)
    f.add_argument("--dmac", required=True)
    f.add_argument("--src4", required=True)
    f.add_argument("--dst4", required=True)
    f.add_argument("--src6", required=True)
    f.add_argument("--dst6", required=True)
    f.add_argument("--dir", default="/shared")
    f.add_argument("--counters-host", required=True)
    f.add_argument("--counters-port", type=int, default=18700)
    f.add_argument("--seed", type=int, required=True)
    f.add_argument("--count", type=int, default=3000)
    f.add_argument("--first-bytes", type=int, default=64,
                   help="truncate at every byte up to this many")
    sub.add_parser("plan")
    args = ap.parse_args()
    if args.cmd == "counters":
        serve_counters(args)
    elif args.cmd == "plan":
        # the addresses only shape frames that are never sent
        dry = argparse.Namespace(
            ifname="-", dmac="02:00:00:00:00:02", src4="192.0.2.1",
            dst4="192.0.2.2", src6="2001:db8::1", dst6="2001:db8::2",
            dir="/nonexistent", counters_host="-", counters_port=0, seed=1,
            count=0, first_bytes=f.get_default("first_bytes"))
        # (a dry run's notes are of no use)
        with contextlib.redirect_stdout(io.StringIO()):
            n = Fuzzer(dry, dry=True).plan()
        print(n)
    else:
        Fuzzer(args).run()


if __name__ == "__main__":
    main()
