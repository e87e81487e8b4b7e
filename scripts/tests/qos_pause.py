#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge PFC pauses on the wire (scripts/tests/qos.sh).

Reads pfc_inject.py's log (when each pause frame and XON left) and tshark's
fields of a capture on the injecting side, tab separated:
  frame.time_epoch eth.src vlan.priority infiniband.bth.opcode
From the log it works out when PRIO was paused: each pause frame holds it
for QUANTA_NS from when it was sent, an XON ends it.  For each of the
--pauses longest pauses it prints two PASS/FAIL lines: the longest gap between frames of
PRIO from --src that overlaps the pause must be its length within 20 %,
and frames of --other must have gone on in it (no gap longer than a fifth
of the pause).  --duration-us, the device's count of the time PRIO was
paused, must be their sum within 20 %.  --corrupt adds a frame of PRIO
amid each pause, as if it had not been honoured: the checker's self-test.
"""
import argparse
import sys


def pauses(log, prio, quanta_ns):
    """The intervals (start, end) in seconds PRIO was paused."""
    iv = []
    for line in open(log):
        f = line.split()
        if len(f) != 3 or f[1] != str(prio):
            continue
        t = float(f[2])
        if f[0] == "XOFF":
            if iv and t <= iv[-1][1]:
                iv[-1][1] = t + quanta_ns / 1e9
            else:
                iv.append([t, t + quanta_ns / 1e9])
        elif f[0] == "XON" and iv and t <= iv[-1][1]:
            iv[-1][1] = t
    return iv


def times(fields, src, prio):
    out = []
    for line in open(fields):
        f = line.rstrip("\n").split("\t")
        if len(f) < 4 or not f[3] or f[1] != src or f[2] != str(prio):
            continue
        out.append(float(f[0]))
    return sorted(out)


def longest_gap(ts, s, e):
    """The longest gap between consecutive times that overlaps [s, e]."""
    best = 0.0
    for a, b in zip(ts, ts[1:]):
        if b >= s and a <= e:
            best = max(best, b - a)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("fields")
    ap.add_argument("--src", required=True, help="the paused sender's MAC")
    ap.add_argument("--prio", type=int, required=True)
    ap.add_argument("--other", type=int, required=True)
    ap.add_argument("--quanta-ns", type=int, required=True)
    ap.add_argument("--pauses", type=int, required=True,
                    help="judge the PAUSES longest pauses")
    ap.add_argument("--duration-us", type=int, required=True)
    ap.add_argument("--corrupt", action="store_true",
                    help="self-test: a frame of PRIO amid every pause")
    a = ap.parse_args()
    iv = pauses(a.log, a.prio, a.quanta_ns)
    ts = times(a.fields, a.src, a.prio)
    if a.corrupt:
        ts = sorted(ts + [(s + e) / 2 for s, e in iv])
    other = times(a.fields, a.src, a.other)
    failed = 0
    total = sum(e - s for s, e in iv)
    longest = sorted(sorted(iv, key=lambda p: p[0] - p[1])[:a.pauses])
    for n in range(a.pauses):
        if n >= len(longest):
            print(f"FAIL PFC pause {n + 1} of priority {a.prio}: "
                  f"only {len(iv)} pauses")
            print(f"FAIL PFC pause {n + 1}: priority {a.other} went on: "
                  "no such pause")
            failed = 1
            continue
        s, e = longest[n]
        want = e - s
        got = longest_gap(ts, s, e)
        name = f"PFC pause {n + 1} of priority {a.prio}: {want * 1e3:.0f} ms"
        if abs(got - want) <= 0.2 * want:
            print(f"PASS {name}, measured {got * 1e3:.0f} ms on the wire")
        else:
            print(f"FAIL {name}: measured {got * 1e3:.0f} ms "
                  f"({len(ts)} frames of priority {a.prio})")
            failed = 1
        og = longest_gap(other, s, e)
        name = f"PFC pause {n + 1}: priority {a.other} went on"
        inside = sum(1 for t in other if s <= t <= e)
        if inside and og <= want / 5:
            print(f"PASS {name} ({inside} frames, longest gap "
                  f"{og * 1e3:.0f} ms)")
        else:
            print(f"FAIL {name}: {inside} frames, longest gap "
                  f"{og * 1e3:.0f} ms")
            failed = 1
    got = a.duration_us / 1e6
    name = f"rx_prio{a.prio}_pause_duration counts the {total * 1e3:.0f} ms paused"
    if abs(got - total) <= 0.2 * total:
        print(f"PASS {name} ({got * 1e3:.0f} ms)")
    else:
        print(f"FAIL {name}: {got * 1e3:.0f} ms")
        failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
