#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the CNPs of a capture (scripts/tests/cc.sh).

Reads tshark's fields, tab separated, in this order:
  frame.time_epoch eth.src vlan.priority ip.dsfield.dscp ip.dsfield.ecn
  ipv6.tclass.dscp ipv6.tclass.ecn infiniband.grh.tclass
  infiniband.bth.opcode infiniband.reserved infiniband.bth.destqp
  _ws.malformed
(Debian bookworm's tshark has no name for opcode 0x81 and shows the BTH
byte holding FECN and BECN as "reserved", in hex.)
and prints PASS/FAIL lines about the CNPs (opcode 0x81) sent from --src:
  - as many as the sender counted (--count), and at least one;
  - each well formed: BECN set and FECN clear (that byte 0x40), DestQP
    the QP of the marked flow's sender
    (--destqp), nothing tshark calls malformed;
  - each marked as configured: for RoCEv2 DSCP --dscp and ECN ECT(0),
    for RoCEv1 a GRH traffic class of --dscp << 2; --pcp its PCP
    ("none": untagged);
  - paced: at least three of them, and no more than one per --min-us over
    the time from the first to the last, give or take --slack-ms for when
    each one left the sender rather than when it was decided (a guest
    held up between the two must not fail a sender that paced well).

--corrupt is the self-test: the first CNP loses its BECN, the second gets
another DSCP, and each is followed by a copy 1 ms later, as if paced at
half the interval; every line must then fail.
"""
import argparse
import sys

FIELDS = ["t", "src", "pcp", "dscp4", "ecn4", "dscp6", "ecn6", "grh_tc",
          "op", "resv8a", "destqp", "malformed"]
CNP = 0x81


def num(s):
    s = s.split(",")[0]
    if not s:
        return None
    if s in ("True", "False"):
        return int(s == "True")
    return int(float(s)) if "." in s else int(s, 0)


def frames(path, src):
    out = []
    with open(path) as f:
        for line in f:
            vals = line.rstrip("\n").split("\t")
            vals += [""] * (len(FIELDS) - len(vals))
            fr = dict(zip(FIELDS, vals))
            if fr["src"].lower() != src.lower() or num(fr["op"]) != CNP:
                continue
            fr["t"] = float(fr["t"])
            for k in FIELDS[2:]:
                if k == "resv8a" and fr[k] and not fr[k].startswith("0x"):
                    fr[k] = "0x" + fr[k]
                fr[k] = num(fr[k]) if k != "malformed" else fr[k]
            out.append(fr)
    return sorted(out, key=lambda fr: fr["t"])


def corrupt(cnps, kind):
    if len(cnps) > 0:
        cnps[0]["resv8a"] = 0
    if len(cnps) > 1:
        k = "grh_tc" if kind == "v1" else ("dscp4" if kind == "v2-ipv4"
                                           else "dscp6")
        cnps[1][k] = (cnps[1][k] or 0) ^ (1 if kind != "v1" else 4)
    for fr in list(cnps):
        extra = dict(fr)
        extra["t"] += 0.001
        cnps.append(extra)
    cnps.sort(key=lambda fr: fr["t"])


def marked_ok(fr, a):
    if a.kind == "v1":
        if fr["grh_tc"] != a.dscp << 2:
            return f"GRH traffic class {fr['grh_tc']}"
    else:
        d, e = (("dscp4", "ecn4") if a.kind == "v2-ipv4"
                else ("dscp6", "ecn6"))
        if fr[d] != a.dscp or fr[e] != 2:
            return f"DSCP {fr[d]} ECN {fr[e]}"
    want = None if a.pcp == "none" else int(a.pcp)
    if fr["pcp"] != want:
        return f"PCP {fr['pcp']}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("fields")
    ap.add_argument("--name", required=True)
    ap.add_argument("--kind", required=True,
                    choices=["v2-ipv4", "v2-ipv6", "v1"])
    ap.add_argument("--src", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--destqp", type=lambda s: int(s, 0), required=True)
    ap.add_argument("--dscp", type=int, required=True)
    ap.add_argument("--pcp", required=True)
    ap.add_argument("--min-us", type=int, required=True)
    ap.add_argument("--slack-ms", type=float, default=20.0)
    ap.add_argument("--corrupt", action="store_true")
    a = ap.parse_args()
    cnps = frames(a.fields, a.src)
    if a.corrupt:
        corrupt(cnps, a.kind)
    failed = 0

    def say(ok, name, why):
        nonlocal failed
        print(f"PASS {name}" if ok else f"FAIL {name}: {why}")
        failed |= not ok

    n = len(cnps)
    say(n > 0 and n == a.count, f"{a.name}: the {a.count} CNPs counted "
        "are on the wire", f"{n} on the wire")
    bad = [fr for fr in cnps if fr["resv8a"] != 0x40 or
           fr["destqp"] != a.destqp or fr["malformed"]]
    say(n > 0 and not bad, f"{a.name}: CNPs have BECN set, DestQP "
        f"{a.destqp:#x}, nothing malformed",
        f"{len(bad)} of {n} not: first FECN/BECN byte {bad[0]['resv8a']}, "
        f"DestQP {bad[0]['destqp']}, malformed '{bad[0]['malformed']}'"
        if bad else "none on the wire")
    why = [w for w in (marked_ok(fr, a) for fr in cnps) if w]
    what = (f"traffic class {a.dscp << 2}" if a.kind == "v1"
            else f"DSCP {a.dscp}, ECT(0)")
    say(n > 0 and not why, f"{a.name}: CNPs carry {what}, PCP {a.pcp}",
        f"{len(why)} of {n} do not, first: {why[0]}" if why
        else "none on the wire")
    span = cnps[-1]["t"] - cnps[0]["t"] if n else 0.0
    most = int((span + a.slack_ms / 1e3) / (a.min_us / 1e6)) + 1
    gaps = [b["t"] - f["t"] for f, b in zip(cnps, cnps[1:])]
    least = f"{min(gaps) * 1e3:.1f} ms" if gaps else "-"
    say(3 <= n <= most, f"{a.name}: CNPs paced, at most one per {a.min_us} us",
        f"{n} in {span * 1e3:.1f} ms, at most {most} allowed "
        f"(closest two {least})")
    return failed


if __name__ == "__main__":
    sys.exit(main())
