#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge PFC pauses on the wire (scripts/tests/qos.sh).

Reads pfc_inject's log ("XOFF PRIO T1 T2", "XON PRIO T1 T2": the receiver
acted on each frame at some time between T1 and T2) and tshark's fields of
a capture of the paused sender's frames, tab separated:
  frame.time_epoch eth.src vlan.priority infiniband.bth.opcode

From the log it works out when PRIO was surely paused: each pause frame
holds it for QUANTA_NS from when it arrived, so surely from T2 to T1 plus
QUANTA_NS; a newer one that surely arrived in time extends that, an XON
ends it (surely paused until its T1, resumed by its T2).  Pause frames less than 50 ms apart make one phase; the
log must hold --phases of them.  For each phase it prints PASS/FAIL lines:
  - no frame of PRIO from --src left while PRIO was paused, but for
    --margin-ms at either edge of each pause: the frames reach the
    receiver through its receive path, behind the data queued there, so
    under load it sees each edge a little later than the log says;
  - PRIO resumed at the end of the phase within a fifth of its length;
  - frames of --other went on while PRIO was surely paused (margins as
    above): some, and either at least a quarter of what its rate outside
    the pauses, within BASE_S of the phases, predicts, or no gap in them
    longer than a fifth of the phase.  A pause that held the whole device
    leaves only the frames already on their way, and fails both; a guest
    that the host does not run for a while, or runs other guests' pollers
    in, thins them or stalls them once, and each alone has failed so.
Then --duration-us, the device's count of the time PRIO was paused, must
lie between the sum of the sure pauses and that of the phases at their
widest, with 20 % to spare.  The self-tests: --corrupt leak adds a frame
of PRIO amid each pause, as if it had not been honoured; --corrupt hol
takes away every frame of --other from the pauses, as if the pause had
held the whole device.
"""
import argparse
import sys


def pauses(log, prio, quanta_ns):
    """The intervals [start, end, latest end, earliest start] in seconds:
    when PRIO was surely paused, and the widest each pause may have been."""
    iv = []
    q = quanta_ns / 1e9
    with open(log) as f:
        for line in f:
            w = line.split()
            if len(w) != 4 or w[1] != str(prio):
                continue
            t1, t2 = float(w[2]), float(w[3])
            if w[0] == "XOFF":
                if iv and t2 <= iv[-1][1]:
                    iv[-1][1:3] = [t1 + q, t2 + q]
                else:
                    iv.append([t2, t1 + q, t2 + q, t1])
            elif w[0] == "XON" and iv and t2 <= iv[-1][1]:
                iv[-1][1:3] = [t1, t2]
    return [p for p in iv if p[1] > p[0]]


def phases(iv, gap=0.05):
    """The pauses grouped into phases: lists of pauses less than @gap apart."""
    out = []
    for p in iv:
        if out and p[0] - out[-1][-1][2] < gap:
            out[-1].append(p)
        else:
            out.append([p])
    return out


def times(fields, src, prio):
    out = []
    with open(fields) as f:
        for line in f:
            w = line.rstrip("\n").split("\t")
            if len(w) >= 4 and w[3] and w[1] == src and w[2] == str(prio):
                out.append(float(w[0]))
    return sorted(out)


def longest_gap(ts, s, e):
    """The longest gap in @ts within [s, e], its edges included."""
    inner = [s] + [t for t in ts if s < t < e] + [e]
    return max(b - a for a, b in zip(inner, inner[1:]))


def judge_phase(n, ph, ts, other, base_rate, a):
    s, e, latest = ph[0][0], ph[-1][1], ph[-1][2]
    length = e - s
    name = f"PFC phase {n}: priority {a.prio} paused {length * 1e3:.0f} ms"
    m = a.margin_ms / 1e3
    inside = [t for p in ph for t in ts if p[0] + m <= t < p[1] - m]
    ok = True
    if inside:
        print(f"FAIL {name}: {len(inside)} of its frames left while paused, "
              f"first {(inside[0] - s) * 1e3:.1f} ms into the phase")
        ok = False
    else:
        print(f"PASS {name} in {len(ph)} pauses: none of its frames left")
    after = [t for t in ts if t >= e]
    late = max(0.0, after[0] - latest) if after else None
    name = f"PFC phase {n}: priority {a.prio} resumed at the end"
    if late is not None and late <= length / 5:
        print(f"PASS {name} (after {late * 1e3:.1f} ms)")
    else:
        print(f"FAIL {name}: " + (f"after {late * 1e3:.1f} ms" if late
                                   is not None else "never"))
        ok = False
    held = [(p[0] + m, p[1] - m) for p in ph if p[1] - p[0] > 2 * m]
    held_s = sum(b - a for a, b in held)
    count = sum(1 for t in other if any(a <= t < b for a, b in held))
    want = base_rate * held_s / 4
    gap = longest_gap(other, s, e)
    name = f"PFC phase {n}: priority {a.other} went on"
    how = (f"{count} frames in the {held_s * 1e3:.0f} ms paused, at least "
           f"{want:.0f} wanted ({base_rate / 1e3:.2f}/ms outside the pauses), "
           f"longest gap {gap * 1e3:.0f} ms, a fifth "
           f"of the phase {length / 5e-3:.0f} ms")
    if count and (count >= want or gap <= length / 5):
        print(f"PASS {name} ({how})")
    else:
        print(f"FAIL {name}: {how}")
        ok = False
    return ok


BASE_S = 0.5


def outside_rate(phs, other):
    """Frames per second of @other within BASE_S of the phases, outside
    every pause at its widest: what it sends when nothing is paused."""
    s, e = phs[0][0][3] - BASE_S, phs[-1][-1][2] + BASE_S
    widest = []
    for p in sorted((p[3], p[2]) for ph in phs for p in ph):
        if widest and p[0] <= widest[-1][1]:
            widest[-1] = (widest[-1][0], max(widest[-1][1], p[1]))
        else:
            widest.append(p)
    span = (e - s) - sum(b - a for a, b in widest)
    count = sum(1 for t in other if s <= t < e and
                not any(a <= t < b for a, b in widest))
    return count / span if span > 0 else 0.0


def where(t0, flows):
    """For the log: when each priority's frames began and ended, in ms from
    the first sure pause; no frame at all in a phase then reads as flows
    that were over, or stalled, rather than as a pause."""
    for prio, ts in flows:
        span = (f"{(ts[0] - t0) * 1e3:.0f} to {(ts[-1] - t0) * 1e3:.0f} ms"
                if ts else "none")
        print(f"priority {prio}: {len(ts)} frames, from the first pause: "
              f"{span}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("fields")
    ap.add_argument("--src", required=True, help="the paused sender's MAC")
    ap.add_argument("--prio", type=int, required=True)
    ap.add_argument("--other", type=int, required=True)
    ap.add_argument("--quanta-ns", type=int, required=True)
    ap.add_argument("--phases", type=int, required=True)
    ap.add_argument("--margin-ms", type=float, default=5.0)
    ap.add_argument("--duration-us", type=int, required=True)
    ap.add_argument("--corrupt", choices=("leak", "hol"))
    a = ap.parse_args()
    iv = pauses(a.log, a.prio, a.quanta_ns)
    ts = times(a.fields, a.src, a.prio)
    other = times(a.fields, a.src, a.other)
    if a.corrupt == "leak":
        ts = sorted(ts + [(p[0] + p[1]) / 2 for p in iv])
    elif a.corrupt == "hol":
        other = [t for t in other if not any(p[3] <= t < p[2] for p in iv)]
    phs = phases(iv)
    if phs and not a.corrupt:
        where(phs[0][0][0], [(a.prio, ts), (a.other, other)])
    base_rate = outside_rate(phs, other) if phs else 0.0
    failed = 0
    for n in range(1, a.phases + 1):
        if n > len(phs):
            for what in ("paused", "resumed at the end", "went on"):
                print(f"FAIL PFC phase {n}: {what}: only {len(phs)} phases "
                      "in the log")
            failed = 1
        elif not judge_phase(n, phs[n - 1], ts, other, base_rate, a):
            failed = 1
    total = sum(p[1] - p[0] for p in iv)
    # at most: each phase from its first frame's T1 to its latest end
    widest = sum(ph[-1][2] - ph[0][3] for ph in phs)
    got = a.duration_us / 1e6
    name = (f"rx_prio{a.prio}_pause_duration counts the "
            f"{total * 1e3:.0f} to {widest * 1e3:.0f} ms paused")
    if 0.8 * total <= got <= 1.2 * widest:
        print(f"PASS {name} ({got * 1e3:.0f} ms)")
    else:
        print(f"FAIL {name}: {got * 1e3:.0f} ms")
        failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
