#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the QoS marking of captured RoCE frames (scripts/tests/qos.sh).

Reads tshark's fields, tab separated, in this order:
  vlan.id vlan.priority ip.dsfield.dscp ip.dsfield.ecn ipv6.tclass.dscp
  ipv6.tclass.ecn infiniband.grh.tclass infiniband.bth.opcode
and prints one line per class of packet (requests, ACKs, READ responses):
"PASS name" when the class was seen and every frame of it carries the
wanted tag, PCP and DSCP / traffic class, else "FAIL name: why".

--corrupt makes the first ACK carry ECT(0) (RoCEv2) or another traffic
class (RoCEv1) and the first READ response another PCP, or strips its tag
(an untagged run): the checker's self-test, whose ACK and READ response
lines must then fail.
"""
import argparse
import sys

FIELDS = ["vid", "pcp", "dscp4", "ecn4", "dscp6", "ecn6", "grh_tc", "op"]


def num(s):
    return int(s, 0) if s else None


def klass(op):
    if op == 0x11:
        return "ACKs"
    if 0x0D <= op <= 0x10:
        return "READ responses"
    return "requests"


def frames(path):
    with open(path) as f:
        for line in f:
            vals = line.rstrip("\n").split("\t")
            vals += [""] * (len(FIELDS) - len(vals))
            fr = {k: num(v.split(",")[0]) for k, v in zip(FIELDS, vals)}
            if fr["op"] is not None:
                yield fr


def corrupt(frs, kind, tag):
    done = set()
    for fr in frs:
        k = klass(fr["op"])
        if k == "ACKs" and k not in done:
            if kind == "v1":
                fr["grh_tc"] ^= 0x04
            else:
                fr["ecn4" if kind == "v2-ipv4" else "ecn6"] = 2
            done.add(k)
        elif k == "READ responses" and k not in done:
            if tag:
                fr["pcp"] = (fr["pcp"] + 1) & 7
            else:
                fr["vid"] = 0
                fr["pcp"] = 0
            done.add(k)
    return frs


def wrong(fr, a):
    """Why @fr is not marked as @a wants, or None."""
    if a.tag and fr["vid"] != 0:
        return f"VLAN ID {fr['vid']}, want a priority tag (0)"
    if a.tag and fr["pcp"] != a.pcp:
        return f"PCP {fr['pcp']}, want {a.pcp}"
    if not a.tag and fr["vid"] is not None:
        return f"tagged (VLAN ID {fr['vid']} PCP {fr['pcp']}), want untagged"
    if a.kind == "v1":
        if fr["grh_tc"] != a.tclass:
            return f"GRH TClass {fr['grh_tc']:#x}, want {a.tclass:#x}"
        return None
    dscp, ecn = (fr["dscp4"], fr["ecn4"]) if a.kind == "v2-ipv4" else \
        (fr["dscp6"], fr["ecn6"])
    if dscp != a.tclass >> 2:
        return f"DSCP {dscp}, want {a.tclass >> 2}"
    if ecn != 0:
        return f"ECN {ecn}, want 0 (not the user's)"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("fields")
    ap.add_argument("--name", required=True)
    ap.add_argument("--kind", choices=["v2-ipv4", "v2-ipv6", "v1"],
                    required=True)
    ap.add_argument("--tag", action="store_true",
                    help="frames carry a priority tag")
    ap.add_argument("--pcp", type=int, default=0)
    ap.add_argument("--tclass", type=lambda s: int(s, 0), required=True,
                    help="the traffic class the QPs were given")
    ap.add_argument("--corrupt", action="store_true")
    a = ap.parse_args()
    frs = list(frames(a.fields))
    if a.corrupt:
        frs = corrupt(frs, a.kind, a.tag)
    failed = 0
    for k in ("requests", "ACKs", "READ responses"):
        of = [fr for fr in frs if klass(fr["op"]) == k]
        bad = [w for w in (wrong(fr, a) for fr in of) if w]
        name = f"{a.name}: {k} marked"
        if not of:
            print(f"FAIL {name}: none captured")
            failed = 1
        elif bad:
            print(f"FAIL {name}: {len(bad)} of {len(of)} wrong, "
                  f"first: {bad[0]}")
            failed = 1
        else:
            print(f"PASS {name} ({len(of)} frames)")
    return failed


if __name__ == "__main__":
    sys.exit(main())
