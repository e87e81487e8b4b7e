#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Floating-point reference model of the DCQCN reaction point.

The rate state machine of the reaction point (RP) as Zhu et al. give it in
"Congestion Control for Large-Scale RDMA Deployments" (SIGCOMM 2015), with
the refinements of the authors' simulator that drivers/sroce/dcqcn.c also
follows, and the knobs under the names mlx5 gives them.  It is written
independently of the kernel code and the other way round: floats instead
of integers, every timer expiry and every byte stage simulated one by one
instead of caught up in closed form.  The KUnit suite sroce_dcqcn
(kunit/dcqcn_test.c) replays the same event scripts against the kernel
code and compares with the values printed here.

Usage:
    python3 scripts/tests/dcqcn_ref.py            # every scenario
    python3 scripts/tests/dcqcn_ref.py NAME...    # some of them

It prints, for each scenario, a C array of "struct dcqcn_ev" rows: the
event (time in ns, kind, argument) and what the model holds after it
(current and target rate in bit/s, alpha in units of 2^-30, the timer and
byte stage counts, and whether a CNP was handled).  The arrays in
kunit/dcqcn_test.c were pasted from this output; change a scenario here,
run it and paste the new rows.

Semantics shared with the kernel code (each choice is explained in
include/sroce/dcqcn.h):
  * on a handled CNP: alpha <- (1 - g) alpha + g first, then the cut
    RC <- RC (1 - alpha/2), no lower than RC rp_min_dec_fac/100 nor the
    minimum rate; RT <- RC (before the cut) if rp_clamp_tgt_rate, or a
    byte-counter increase happened since the last CNP, or a timer increase
    did and rp_clamp_tgt_rate_ati is set;
  * the first CNP of an unlimited QP starts from rp_initial_alpha_value
    and, if rp_rate_to_set_on_first_cnp is set, sets RC = RT to that rate
    instead of cutting;
  * CNPs less than rp_rate_reduce_monitor_period after the last handled
    one are ignored altogether;
  * alpha decays by (1 - g) every rp_dce_tcp_rtt after the last handled
    CNP (or init);
  * the increase: fast recovery while max(T, BC) < F, hyper increase by
    R_HAI (min(T, BC) - F) while min(T, BC) > F, additive by R_AI
    otherwise; RC <- (RT + RC) / 2; both capped at the maximum rate;
  * in hyper stage the timer period and the byte threshold are halved
    (the period from the next expiry on);
  * with g = 1 - rp_dce_tcp_g / 1024.
"""
import sys
import textwrap

DEFAULTS = {
    'rp_clamp_tgt_rate': 0,
    'rp_clamp_tgt_rate_ati': 1,
    'rp_time_reset': 300,
    'rp_byte_reset': 32767,
    'rp_threshold': 5,
    'rp_ai_rate': 5,
    'rp_hai_rate': 50,
    'rp_max_rate': 0,
    'rp_min_rate': 1,
    'rp_min_dec_fac': 50,
    'rp_rate_to_set_on_first_cnp': 0,
    'rp_dce_tcp_g': 1020,
    'rp_dce_tcp_rtt': 55,
    'rp_rate_reduce_monitor_period': 4,
    'rp_initial_alpha_value': 1023,
}

STAGE_MAX = 65535
US = 1000
MS = 1000 * US
S = 1000 * MS


class RP:
    """One QP's reaction point, every event simulated on its own."""

    def __init__(self, prm, line_mbps, now):
        self.p = dict(DEFAULTS)
        self.p.update(prm)
        self.line = line_mbps * 1e6
        self.g = 1.0 - self.p['rp_dce_tcp_g'] / 1024.0
        self.rc = self.rt = self.max_rate()
        self.alpha = self.p['rp_initial_alpha_value'] / 1024.0
        self.alpha_next = now + self.p['rp_dce_tcp_rtt'] * US
        self.t = self.bc = 0
        self.bytes = 0
        self.timer = now
        self.now = now
        self.limited = False
        self.seen = False
        self.last_cnp = 0
        self.inc_timer = self.inc_byte = False

    def max_rate(self):
        m = self.p['rp_max_rate'] * 1e6
        return min(m, self.line) if m else self.line

    def min_rate(self):
        return min(self.p['rp_min_rate'] * 1e6, self.max_rate())

    def hyper(self):
        return min(self.t, self.bc) > self.p['rp_threshold']

    def increase(self):
        f = self.p['rp_threshold']
        m = self.max_rate()
        if max(self.t, self.bc) < f:
            pass
        elif min(self.t, self.bc) > f:
            self.rt += self.p['rp_hai_rate'] * 1e6 * (min(self.t, self.bc) - f)
        else:
            self.rt += self.p['rp_ai_rate'] * 1e6
        self.rt = min(self.rt, m)
        self.rc = min((self.rt + self.rc) / 2.0, m)
        # the kernel's integer rate reaches the maximum exactly once it
        # is less than one bit/s away; a float would only creep closer
        if m - self.rc < 1.0:
            self.rc = m
        if self.rc >= m and self.rt >= m:
            self.limited = False

    def advance(self, now):
        now = max(now, self.now)
        self.now = now
        k = self.p['rp_dce_tcp_rtt'] * US
        while self.alpha_next <= now:
            self.alpha *= 1.0 - self.g
            self.alpha_next += k
            if self.alpha < 1e-300:
                # nothing left to decay (a subnormal times 1 - g may round
                # back to itself): skip the rest of the periods
                self.alpha = 0.0
                self.alpha_next += (now - self.alpha_next) // k * k + k
        period = self.p['rp_time_reset'] * US
        while self.limited and self.timer <= now:
            self.t = min(self.t + 1, STAGE_MAX)
            self.inc_timer = True
            self.increase()
            self.timer += period // 2 if self.hyper() else period

    def sent(self, nbytes, now):
        self.advance(now)
        if not self.limited:
            return
        self.bytes += nbytes
        b = self.p['rp_byte_reset']
        while self.limited:
            thr = max(b // 2, 1) if self.hyper() else b
            if self.bytes < thr:
                break
            self.bytes -= thr
            self.bc = min(self.bc + 1, STAGE_MAX)
            self.inc_byte = True
            self.increase()
        if not self.limited:
            self.bytes = 0

    def cnp(self, now):
        self.advance(now)
        now = self.now
        if self.seen and now - self.last_cnp < \
                self.p['rp_rate_reduce_monitor_period'] * US:
            return False
        self.seen = True
        self.last_cnp = now
        m = self.max_rate()
        first = not self.limited
        if first:
            self.alpha = self.p['rp_initial_alpha_value'] / 1024.0
        self.alpha = (1.0 - self.g) * self.alpha + self.g
        self.alpha_next = now + self.p['rp_dce_tcp_rtt'] * US
        r1 = self.p['rp_rate_to_set_on_first_cnp'] * 1e6
        if first and r1:
            self.rc = self.rt = min(max(r1, self.min_rate()), m)
        else:
            if self.p['rp_clamp_tgt_rate'] or self.inc_byte or \
                    (self.p['rp_clamp_tgt_rate_ati'] and self.inc_timer):
                self.rt = self.rc
            cut = self.rc * (1.0 - self.alpha / 2.0)
            bound = self.rc * self.p['rp_min_dec_fac'] / 100.0
            self.rc = max(cut, bound, self.min_rate())
        self.t = self.bc = 0
        self.bytes = 0
        self.inc_timer = self.inc_byte = False
        self.timer = now + self.p['rp_time_reset'] * US
        self.limited = not (self.rc >= m and self.rt >= m)
        return True


def run(prm, line_mbps, events):
    """Replay events: (time_ns, 'adv'|'sent'|'cnp', arg); one row each."""
    rp = RP(prm, line_mbps, 0)
    rows = []
    for t, kind, arg in events:
        handled = 0
        if kind == 'adv':
            rp.advance(t)
        elif kind == 'sent':
            rp.sent(arg, t)
        else:
            handled = int(rp.cnp(t))
        rows.append((t, kind, arg, rp.rc, rp.rt, rp.alpha, rp.t, rp.bc,
                     handled, int(rp.limited)))
    return rows


def sc_cut():
    """One CNP from line rate, then a second after three timer steps."""
    return {}, 100000, [(10 * US, 'cnp', 0), (1000 * US, 'cnp', 0)]


def sc_alpha():
    """Alpha after j periods of 55 us without a CNP (and 1 ns before)."""
    ev = [(0, 'cnp', 0)]
    for j in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987,
              2000):
        ev.append((j * 55 * US - 1, 'adv', 0))
        ev.append((j * 55 * US, 'adv', 0))
    return {}, 100000, ev


def sc_recovery():
    """Fast recovery (T = 1..4), then additive, timer only."""
    return {}, 100000, [(0, 'cnp', 0)] + \
        [(j * 300 * US, 'adv', 0) for j in range(1, 11)]


def sc_hyper():
    """Timer and byte counter both drive: additive, then hyper increase.

    Two CNPs with rp_clamp_tgt_rate put RT well below line rate, so that
    the increases show; R_AI and R_HAI are the paper's and its simulator's.
    """
    prm = {'rp_clamp_tgt_rate': 1, 'rp_time_reset': 55,
           'rp_byte_reset': 1000000, 'rp_ai_rate': 40, 'rp_hai_rate': 200}
    ev = [(0, 'cnp', 0), (10 * US, 'cnp', 0)]
    for j in range(1, 101):
        ev.append((j * 20 * US, 'sent', 250000))
    return prm, 100000, ev


def sc_storm():
    """A CNP every 10 us: the rate halves down to the minimum, no lower."""
    return {'rp_min_rate': 1000}, 100000, \
        [(j * 10 * US, 'cnp', 0) for j in range(40)]


def sc_mindec():
    """rp_min_dec_fac 80: no cut takes more than a fifth of the rate."""
    return {'rp_min_dec_fac': 80}, 100000, \
        [(j * 10 * US, 'cnp', 0) for j in range(4)]


def sc_clamp_off():
    """No increase between two CNPs: RT is left where it was."""
    return {}, 100000, [(0, 'cnp', 0), (200 * US, 'cnp', 0)]


def sc_clamp_on():
    """rp_clamp_tgt_rate: RT <- RC on every CNP."""
    return {'rp_clamp_tgt_rate': 1}, 100000, \
        [(0, 'cnp', 0), (200 * US, 'cnp', 0)]


def sc_clamp_ati():
    """A timer increase between the CNPs: RT <- RC (rp_clamp_tgt_rate_ati)."""
    return {}, 100000, [(0, 'cnp', 0), (400 * US, 'cnp', 0)]


def sc_clamp_noati():
    """The same with rp_clamp_tgt_rate_ati 0: RT is left where it was."""
    return {'rp_clamp_tgt_rate_ati': 0}, 100000, \
        [(0, 'cnp', 0), (400 * US, 'cnp', 0)]


def sc_clamp_byte():
    """A byte-counter increase between the CNPs: RT <- RC, ati or not."""
    return {'rp_clamp_tgt_rate_ati': 0}, 100000, \
        [(0, 'cnp', 0), (100 * US, 'sent', 32767), (200 * US, 'cnp', 0)]


def sc_monitor():
    """rp_rate_reduce_monitor_period 100 us: closer CNPs are ignored."""
    return {'rp_rate_reduce_monitor_period': 100}, 100000, [
        (0, 'cnp', 0), (50 * US, 'cnp', 0), (100 * US - 1, 'cnp', 0),
        (100 * US, 'cnp', 0), (150 * US, 'cnp', 0), (350 * US, 'cnp', 0)]


def sc_first():
    """rp_rate_to_set_on_first_cnp: the first CNP of an unlimited QP."""
    return {'rp_rate_to_set_on_first_cnp': 20000}, 100000, [
        (0, 'cnp', 0), (100 * US, 'cnp', 0), (1 * S, 'adv', 0),
        (10 * S, 'adv', 0), (10 * S + 1, 'cnp', 0)]


def sc_gap():
    """100 byte stages at once, then gaps: hyper increase growing with T.

    The first CNP sets 1 Gb/s; the byte stages come while T = 0, so they
    are additive, and leave BC = 100.  Then the timer alone: additive up
    to T = F, hyper with i = T - F growing each step until RT reaches line
    rate (i about 63), then RC converging on it.
    """
    ev = [(0, 'cnp', 0), (1 * US, 'sent', 100 * 32767)]
    for t in (300 * US, 600 * US, 1 * MS, 1500 * US, 2 * MS, 3 * MS,
              5 * MS, 7 * MS, 10 * MS, 15 * MS, 20 * MS, 30 * MS, 1 * S,
              3600 * S):
        ev.append((t, 'adv', 0))
    return {'rp_rate_to_set_on_first_cnp': 1000}, 100000, ev


def sc_gap_flat():
    """As gap, with BC = 20: hyper by R_HAI (20 - F) once T passes BC."""
    ev = [(0, 'cnp', 0), (1 * US, 'sent', 20 * 32767)]
    for t in (1 * MS, 2 * MS, 4 * MS, 10 * MS, 20 * MS, 40 * MS, 60 * MS,
              80 * MS, 100 * MS, 3600 * S):
        ev.append((t, 'adv', 0))
    return {'rp_rate_to_set_on_first_cnp': 1000}, 400000, ev


SCENARIOS = {
    'cut': sc_cut, 'alpha': sc_alpha, 'recovery': sc_recovery,
    'hyper': sc_hyper, 'storm': sc_storm, 'mindec': sc_mindec,
    'clamp_off': sc_clamp_off, 'clamp_on': sc_clamp_on,
    'clamp_ati': sc_clamp_ati, 'clamp_noati': sc_clamp_noati,
    'clamp_byte': sc_clamp_byte, 'monitor': sc_monitor, 'first': sc_first,
    'gap': sc_gap, 'gap_flat': sc_gap_flat,
}

KIND = {'adv': 'EV_ADV', 'sent': 'EV_SENT', 'cnp': 'EV_CNP'}


def main(names):
    for name in names or SCENARIOS:
        fn = SCENARIOS[name]
        prm, line, events = fn()
        head = '%s: %s Line %d Mb/s, %s.' % (
            name, fn.__doc__.split('\n')[0], line,
            ', '.join('%s %s' % kv for kv in sorted(prm.items()))
            or 'default parameters')
        lines = textwrap.wrap(head, 72)
        print('/* ' + '\n * '.join(lines) + (' */' if len(lines) == 1
                                              else '\n */'))
        print('static const struct dcqcn_ev ev_%s[] = {' % name)
        for (t, kind, arg, rc, rt, alpha, st, bc, handled,
             limited) in run(prm, line, events):
            print('\t{ %d, %s, %d, %d, %d, %d, %d, %d, %d, %d },' %
                  (t, KIND[kind], arg, round(rc), round(rt),
                   round(alpha * 2**30), st, bc, handled, limited))
        print('};\n')


if __name__ == '__main__':
    main(sys.argv[1:])
