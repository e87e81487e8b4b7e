#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Figures of an incast run (incast.sh) from what it recorded.

Each flow's receiving rdma_verify printed "# server: progress MS BYTES"
lines (MS: CLOCK_REALTIME in ms, BYTES: checked so far); the queue
sampler (qdisc_sample.py) wrote "MS BACKLOG SENT" lines, SENT the bytes
the bottleneck has sent.  Over the window in which every
flow ran (from the last flow's first byte plus the warm-up to the first
flow's end; a flow named by --failed, whose stream ended in an error,
counts with what it checked but sets no end), this prints, as "key value" lines:

  window_s             the window's length
  flow_NAME_mbps       each flow's checked throughput in it
  jain                 Jain's fairness index of those, (sum x)^2 / (n sum x^2)
  total_mbps           their sum (payload)
  goodput              total_mbps over the bottleneck's rate (--rate)
  util                 what the bottleneck sent in the window, headers
                       and all, over what its rate allows
  queue_p50, queue_p99 the backlog samples in the window, bytes
  queue_samples        how many there were

With --series SECS it prints instead, for each SECS-long step from the
first byte of any flow, "t T NAME MBPS ..." lines (T: the step's end, s),
for a convergence plot.

With --converge MS (a flow joined at MS, CLOCK_REALTIME; 0: when the
last flow's first byte arrived) it prints
"converge_s S": the time from MS to the end of the first --step long
step (default 0.5 s) from which on, for --hold steps (default 4), every
flow's throughput is within --tol (default 0.10) of the step's fair
share, the mean of all flows in it; or "converge_s none".
"""
import argparse
import sys


def progress(path):
    pts = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and w[:3] == ['#', 'server:', 'progress']:
                pts.append((int(w[3]), int(w[4])))
    return pts


def bytes_at(pts, t):
    """Checked bytes at time t, linear between samples."""
    if t <= pts[0][0]:
        return pts[0][1]
    for (t0, b0), (t1, b1) in zip(pts, pts[1:]):
        if t0 <= t <= t1:
            return b0 if t1 == t0 else b0 + (b1 - b0) * (t - t0) / (t1 - t0)
    return pts[-1][1]


def first_byte(pts):
    for t, b in pts:
        if b > 0:
            return t
    return pts[0][0]


def percentile(vals, p):
    """Nearest-rank percentile."""
    s = sorted(vals)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def jain(xs):
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq else 0.0


def step_rates(flows, t, step):
    """Each flow's Mb/s over [t, t + step), in ms."""
    return [(bytes_at(p, t + step) - bytes_at(p, t)) * 8 / step / 1e3
            for p in flows.values()]


def converge(flows, a):
    """Seconds from the join to the end of the first step of a fair run."""
    step = int(a.step * 1000)
    end = min(p[-1][0] for p in flows.values())
    fair = []
    # 0: from the last flow's first byte
    t = a.converge or max(first_byte(p) for p in flows.values())
    while t + step <= end:
        r = step_rates(flows, t, step)
        share = sum(r) / len(r)
        fair.append(share > 0 and all(abs(x - share) <= a.tol * share for x in r))
        t += step
    for k in range(len(fair) - a.hold + 1):
        if all(fair[k:k + a.hold]):
            return f'{(k + 1) * a.step:.1f}'
    return 'none'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--flow', action='append', default=[], metavar='NAME=LOG')
    ap.add_argument('--failed', action='append', default=[], metavar='NAME')
    ap.add_argument('--queue', help='backlog samples')
    ap.add_argument('--rate', type=float, required=True, help='bottleneck, Mb/s')
    ap.add_argument('--warmup', type=float, default=2.0, help='seconds')
    ap.add_argument('--series', type=float, help='step, seconds')
    ap.add_argument('--converge', type=int, help='join time, ms')
    ap.add_argument('--step', type=float, default=0.5)
    ap.add_argument('--hold', type=int, default=4)
    ap.add_argument('--tol', type=float, default=0.10)
    a = ap.parse_args()

    flows = {}
    for spec in a.flow:
        name, path = spec.split('=', 1)
        pts = progress(path)
        if len(pts) < 2:
            print(f'error flow {name}: no progress in {path}')
            return 1
        flows[name] = pts

    if a.series:
        t0 = min(first_byte(p) for p in flows.values())
        end = max(p[-1][0] for p in flows.values())
        step = int(a.series * 1000)
        t = t0
        while t + step <= end:
            row = [f't {(t + step - t0) / 1000:.2f}']
            for name, pts in flows.items():
                live = pts[0][0] <= t and t + step <= pts[-1][0]
                mbps = (bytes_at(pts, t + step) - bytes_at(pts, t)) * 8 / step / 1e3
                row.append(f'{name} {mbps:.3f}' if live else f'{name} -')
            print(' '.join(row))
            t += step
        return 0

    if a.converge is not None:
        print(f'converge_s {converge(flows, a)}')
        return 0

    start = max(first_byte(p) for p in flows.values()) + a.warmup * 1000
    ends = [p[-1][0] for n, p in flows.items() if n not in a.failed]
    if not ends:
        print('error every flow failed')
        return 1
    end = min(ends)
    if end - start < 1000:
        print(f'error window of {(end - start) / 1000:.2f} s: the flows hardly overlapped')
        return 1
    print(f'window_s {(end - start) / 1000:.2f}')
    rates = []
    for name, pts in flows.items():
        mbps = (bytes_at(pts, end) - bytes_at(pts, start)) * 8 / (end - start) / 1e3
        rates.append(mbps)
        print(f'flow_{name}_mbps {mbps:.3f}')
    total = sum(rates)
    print(f'jain {jain(rates):.4f}')
    print(f'total_mbps {total:.3f}')
    print(f'goodput {total / a.rate:.4f}')
    if a.queue:
        q = []
        sent = []
        with open(a.queue, encoding='utf-8') as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and start <= int(w[0]) <= end:
                    q.append(int(w[1]))
                    sent.append((int(w[0]), int(w[2])))
        if len(sent) >= 2:
            (t0, b0), (t1, b1) = sent[0], sent[-1]
            if t1 > t0:
                print(f'util {(b1 - b0) * 8 / (t1 - t0) / 1e3 / a.rate:.4f}')
        print(f'queue_samples {len(q)}')
        if q:
            print(f'queue_p50 {percentile(q, 50)}')
            print(f'queue_p99 {percentile(q, 99)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
