#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's instruction counts: attribute the TCG plugin's snapshots.

    report.py RUNDIR...

Each RUNDIR is the shared dir of one guest pair run of
scripts/icount/guest.sh under the plugin (one driver, one round): it holds
each guest's kallsyms.ROLE, the snapshots .icount.ROLE.ROW.{short,long}.{0,1}
and rows.txt, the "DRV ROW UNITS" lines guest a printed.  For every row,
the long run's counts minus the short run's, both guests together, are
attributed by start address to the driver's module, the CRC code, the
RDMA core (ib_core, ib_uverbs, rdma_cm, ib_cm, iw_cm) and the rest of the
kernel, and to user space; REP string iterations apart.  Prints a line a
driver, row and round: "DRV ROW ROUND UNITS total module crc rdma kernel
user rep" in instructions per unit (KiB, or round trip for *_lat_*).
"""
import bisect
import os
import sys

KERNEL_START = 0xFFFF800000000000
RDMA_CORE = {"ib_core", "ib_uverbs", "rdma_cm", "ib_cm", "iw_cm", "rdma_ucm"}
DRIVERS = {"rdma_sroce", "rdma_rxe"}
CRC_MODULES = {"crc32c_intel", "crc32_pclmul", "crc32c_generic", "libcrc32c",
               "crc32_generic"}


def load_kallsyms(path):
    """Sorted start addresses and, for each, (name, module or '')."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] in ("a", "A", "u", "U"):
                continue
            addr = int(parts[0], 16)
            if addr == 0:
                continue
            mod = parts[3].strip("[]") if len(parts) > 3 else ""
            syms.append((addr, parts[2], mod))
    syms.sort()
    return [s[0] for s in syms], [(s[1], s[2]) for s in syms]


def category(addr, addrs, info):
    if addr < KERNEL_START:
        return "user"
    i = bisect.bisect_right(addrs, addr) - 1
    if i < 0:
        return "kernel"
    name, mod = info[i]
    if mod in DRIVERS:
        return "module"
    if mod in CRC_MODULES or "crc32" in name:
        return "crc"
    if mod in RDMA_CORE:
        return "rdma"
    return "kernel"


def load_snap(path):
    counts = {}
    with open(path) as f:
        for line in f:
            a, n, r = line.split()
            counts[int(a, 16)] = (int(n), int(r))
    return counts


def delta(before, after):
    out = {}
    for a, (n, r) in after.items():
        n0, r0 = before.get(a, (0, 0))
        if n != n0 or r != r0:
            out[a] = (n - n0, r - r0)
    return out


def row_counts(run, role, row, syms):
    """The long run's instructions minus the short run's, by category."""
    cats = dict.fromkeys(("module", "crc", "rdma", "kernel", "user", "rep"), 0)
    base = os.path.join(run, ".icount.%s.%s" % (role, row))
    for kind, sign in (("long", 1), ("short", -1)):
        d = delta(load_snap("%s.%s.0" % (base, kind)),
                  load_snap("%s.%s.1" % (base, kind)))
        for a, (n, r) in d.items():
            cats[category(a, *syms)] += sign * n
            if a >= KERNEL_START:
                cats["rep"] += sign * r
    return cats


def main(runs):
    for rnd, run in enumerate(runs, 1):
        syms = {r: load_kallsyms(os.path.join(run, "kallsyms." + r))
                for r in ("a", "b")}
        with open(os.path.join(run, "rows.txt")) as f:
            rows = [line.split() for line in f if line.strip()]
        for drv, row, units in rows:
            units = int(units)
            tot = dict.fromkeys(("module", "crc", "rdma", "kernel", "user",
                                 "rep"), 0)
            try:
                for role in ("a", "b"):
                    for k, v in row_counts(run, role, row, syms[role]).items():
                        tot[k] += v
            except OSError as e:
                print("%s %s %d n/a (%s)" % (drv, row, rnd, e), flush=True)
                continue
            kern = tot["module"] + tot["crc"] + tot["rdma"] + tot["kernel"]
            print("%s %s %d %d %.0f %.0f %.0f %.0f %.0f %.0f %.0f" % (
                drv, row, rnd, units, kern / units, tot["module"] / units,
                tot["crc"] / units, tot["rdma"] / units,
                tot["kernel"] / units, tot["user"] / units,
                tot["rep"] / units))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
