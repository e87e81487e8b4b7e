#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How guessable a sequence of QP numbers or MR keys is (sec_numbers.c).

Usage:
  sec_entropy.py [--name NAME] BITS FILE   judge the numbers in FILE
  sec_entropy.py --plan                    how many checks that prints
  sec_entropy.py --selftest                the method against known input
  sec_entropy.py --selftest --plan         how many checks that prints

FILE holds one hexadecimal number a line ("0x" optional, blank lines
skipped), in the order the driver handed them out, each below 2^BITS;
BITS is a multiple of 8 (24 for QP numbers, 32 for MR keys).  The output
is "PASS name" / "FAIL name: why" lines, one for each check, and "# "
lines with the figures behind them.

The method
----------
Let v_1 .. v_N be the numbers and B = BITS / 8 their number of bytes.

Byte entropy H(x_1 .. x_N): for each byte position b (0 the lowest),
count how often each of the 256 byte values occurs at b over the N
numbers and take the plug-in Shannon entropy of that histogram,
  H_b = - sum over byte values c of p_c * log2(p_c),  p_c = count_c / N;
H is H_0 + .. + H_{B-1}.  Each H_b is at most 8, so H is at most BITS.

The same is taken of the consecutive differences
  d_i = (v_{i+1} - v_i) mod 2^BITS,  i = 1 .. N-1,
which flattens any sequence that moves by a fixed or narrowly spread
step: a counter has H(values) of about 13 bits at N = 10000 (a full low
byte, 40 values of the next one, a constant top byte) but H(differences)
of 0.

The estimate is min(H(values), H(differences)).  Checks:
  "NAME entropy estimate >= 20 bits"    the estimate is at least 20;
  "NAME no constant step"               the most common difference occurs
                                        at most N / 100 times.
NAME is --name, or FILE's base name.

Figures to expect at N = 10000: numbers drawn uniformly from 24 bits give
about 23.94 on both (the plug-in estimate of a uniform byte falls short
of 8 by about 255 / (2 N ln 2) = 0.018 bits), and a most common
difference seen once to three times.  A counter gives about 13.3 and 0.
Keys made of a counting index above a random low byte (index << 8 |
random, the scheme sroce had before) give about 21.3 on the values but
about 9 on the differences, so the estimate catches them.  A sequence
with a fixed step looks uniform byte by byte and has 0 bits of
differences; the constant-step check names it outright.

What it does not show: the estimate sees only the marginal distribution
of each byte of the numbers and of their first differences.  A
permutation of a counter under a key the attacker knows, or any other
generator with structure across bytes or across more than one step,
passes although it is predictable; so does a good permutation whose key
leaks.  The figures are therefore an upper bound on what a guesser
without the key faces, good at catching counters, fixed strides and
partly counting numbers, and no proof of unpredictability.  The plug-in
estimator is biased low by about 0.018 bits a byte at N = 10000 and more
at smaller N (at N below 256 no byte can reach 8 bits), so N should be
in the thousands.

--selftest runs the method on a counter from 0x11 (24 bits), on keys
index << 8 | random byte with the index counting from 1 (32 bits), on
x_{i+1} = x_i + 0x9e3779 mod 2^24, and on random numbers of which every
40th is 0x1000 above the one before it (only the constant-step check
sees those), each of which must be rejected, and on 10000 numbers of
random.SystemRandom().getrandbits(24), which must be accepted.
"""
import argparse
import math
import os
import random
import sys
from collections import Counter

MIN_BITS = 20.0
STEP_SHARE = 100        # the top difference at most N / STEP_SHARE times
SELFTEST_N = 10000


def byte_entropies(values, bits):
    """The plug-in entropy in bits of each byte position, lowest first."""
    n = len(values)
    out = []
    for b in range(bits // 8):
        counts = Counter((v >> (8 * b)) & 0xff for v in values)
        h = 0.0
        for c in counts.values():
            p = c / n
            h -= p * math.log2(p)
        out.append(h)
    return out


def differences(values, bits):
    mask = (1 << bits) - 1
    return [(b - a) & mask for a, b in zip(values, values[1:])]


def judge(values, bits):
    """The figures of the method for values (at least two of them)."""
    diffs = differences(values, bits)
    hv = byte_entropies(values, bits)
    hd = byte_entropies(diffs, bits)
    step, step_n = Counter(diffs).most_common(1)[0]
    return {
        "n": len(values),
        "h_values": hv,
        "h_diffs": hd,
        "estimate": min(sum(hv), sum(hd)),
        "step": step,
        "step_n": step_n,
        "step_max": len(values) / STEP_SHARE,
    }


def entropy_ok(f):
    return f["estimate"] >= MIN_BITS


def step_ok(f):
    return f["step_n"] <= f["step_max"]


def figures(label, f, bits):
    width = (bits + 3) // 4
    each = " + ".join(f"{h:.2f}" for h in f["h_values"])
    print(f"# {label}: {f['n']} values; H(values) = {each} "
          f"= {sum(f['h_values']):.2f} bits (bytes low to high)")
    each = " + ".join(f"{h:.2f}" for h in f["h_diffs"])
    print(f"# {label}: H(differences) = {each} "
          f"= {sum(f['h_diffs']):.2f} bits")
    print(f"# {label}: estimate {f['estimate']:.2f} bits; most common "
          f"difference 0x{f['step']:0{width}x}, {f['step_n']} times "
          f"(at most {f['step_max']:g} allowed)")


def report(name, why):
    """Print the line of check name, passed when why is None."""
    if why is None:
        print(f"PASS {name}")
    else:
        print(f"FAIL {name}: {why}")
    return why is None


def read_values(path, bits):
    """The numbers of path, or raise ValueError saying what is wrong."""
    values = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            s = line.strip()
            if not s:
                continue
            try:
                v = int(s, 16)
            except ValueError:
                raise ValueError(f"line {lineno}: not a hex number: {s!r}")
            if v < 0 or v >> bits:
                raise ValueError(f"line {lineno}: {s} is wider than "
                                 f"{bits} bits")
            values.append(v)
    if len(values) < 2:
        raise ValueError(f"{len(values)} numbers, need at least 2")
    return values


def run_file(bits, path, name):
    names = [f"{name} entropy estimate >= {MIN_BITS:g} bits",
             f"{name} no constant step"]
    try:
        values = read_values(path, bits)
    except (OSError, ValueError) as e:
        for n in names:
            report(n, f"cannot read {path}: {e}")
        return False
    f = judge(values, bits)
    figures(name, f, bits)
    ok = report(names[0], None if entropy_ok(f) else
                f"{f['estimate']:.2f} bits (values "
                f"{sum(f['h_values']):.2f}, differences "
                f"{sum(f['h_diffs']):.2f})")
    ok &= report(names[1], None if step_ok(f) else
                 f"difference 0x{f['step']:x} occurs {f['step_n']} times "
                 f"of {f['n'] - 1}")
    return ok


def selftest_cases():
    """(check name, bits, values, whether the method must accept them)."""
    rng = random.SystemRandom()
    n = SELFTEST_N
    counter = [0x11 + i for i in range(n)]
    old_keys = [(i + 1) << 8 | rng.getrandbits(8) for i in range(n)]
    stride = [0] * n
    for i in range(1, n):
        stride[i] = (stride[i - 1] + 0x9e3779) & 0xffffff
    uniform = [rng.getrandbits(24) for _ in range(n)]
    # random, but every 40th number 0x1000 above the one before it: the
    # byte entropies hardly move, the constant-step check must see it
    hidden = uniform[:]
    for i in range(40, n, 40):
        hidden[i] = (hidden[i - 1] + 0x1000) & 0xffffff
    return [
        ("self-test rejects a counter from 0x11", 24, counter, False),
        ("self-test rejects index << 8 | random byte", 32, old_keys, False),
        ("self-test rejects a step of 0x9e3779", 24, stride, False),
        ("self-test rejects a step of 0x1000 before every 40th number", 24,
         hidden, False),
        ("self-test accepts SystemRandom 24-bit numbers", 24, uniform,
         True),
    ]


def run_selftest():
    ok = True
    for name, bits, values, accept in selftest_cases():
        f = judge(values, bits)
        figures(name, f, bits)
        passed = entropy_ok(f) and step_ok(f)
        verdict = "accepted" if passed else "rejected"
        why = []
        if not entropy_ok(f):
            why.append(f"estimate {f['estimate']:.2f} < {MIN_BITS:g} bits")
        if not step_ok(f):
            why.append(f"a constant step ({f['step_n']} times)")
        if why:
            verdict += f" ({', '.join(why)})"
        print(f"# {name}: {verdict}")
        if passed == accept:
            ok &= report(name, None)
        else:
            ok &= report(name, f"the method {verdict.split()[0]} it")
    return ok


def main():
    ap = argparse.ArgumentParser(
        description="Judge how guessable a sequence of numbers is "
                    "(the method is in the module's docstring).")
    ap.add_argument("bits", nargs="?", type=int,
                    help="width of the numbers, a multiple of 8")
    ap.add_argument("file", nargs="?", help="hex numbers, one a line")
    ap.add_argument("--name", help="check name prefix (FILE's base name)")
    ap.add_argument("--plan", action="store_true",
                    help="print how many checks a run prints")
    ap.add_argument("--selftest", action="store_true",
                    help="run the method on known sequences")
    args = ap.parse_args()

    if args.plan:
        print(len(selftest_cases()) if args.selftest else 2)
        return 0
    if args.selftest:
        return 0 if run_selftest() else 1
    if args.bits is None or args.file is None:
        ap.error("BITS and FILE are needed")
    if args.bits <= 0 or args.bits % 8:
        ap.error("BITS must be a positive multiple of 8")
    name = args.name or os.path.basename(args.file)
    return 0 if run_file(args.bits, args.file, name) else 1


if __name__ == "__main__":
    sys.exit(main())
