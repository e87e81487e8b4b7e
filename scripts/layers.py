#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the driver's layering (Documentation/design.rst, "Layers").

Every header and C file of the driver belongs to one layer.  A file may
include the headers of its own layer and of the layers below it; a header
declares only what files of its own layer define; and the only cycle of
calls between the driver's files is the transport core, whose files hand
packets and QPs to each other by nature (rx -> resp -> tx -> loopback ->
rx, qp <-> req <-> comp).  The include rule is read from the sources; the
other two from the symbols of the built objects (nm), so the module must
be built first.

Usage: scripts/layers.py [--src DIR] [--objs DIR] [--no-objs]
Prints one line per violation and exits 1 if there is any.
"""
import collections
import glob
import os
import re
import subprocess
import sys

# bottom to top
LAYERS = [
    ('compat', 'what the target kernel provides, probed (compat/probe.sh)',
     'compat.h'),
    ('wire', 'pure codecs of the wire formats, no kernel objects',
     'hdr.h hdr.c opcode.h opcode.c psn.h nethdr.h icrc.h icrc.c frame.h '
     'frame.c wire.h pktbuf.h pktbuf.c'),
    ('policy', 'pure algorithms: rings, QoS, scheduling, PFC, DCQCN',
     'queue.h queue.c rxe_abi.h qos.h qos.c txsched.h txsched.c pfc.h pfc.c dcqcn.h '
     'dcqcn.c'),
    ('device', 'struct sroce_dev, its limits, counters, registry, key tables',
     'limits.h stats.h device.h numspace.h numspace.c registry.c'),
    ('objects', 'verbs objects the transport reads: PD, AH, MR, MW, CQ',
     'verbs.h verbs.c ah.h ah.c mr.h mr.c mw.c cq.h cq.c'),
    ('core', 'the transport core: QPs, requester, completer, responder, '
     'transmit and receive, multicast, congestion control, tracepoints',
     'tx.h tx.c txbuild.c txzc.h txzc.c loopback.c rx.h rx.c net.c transport.h qp.c sq.c rq.c '
     'req.c comp.c resp.c respgen.c srq.h srq.c mcast.h mcast.c cnp.h cnp.c rp.h rp.c '
     'trace.h trace.c'),
    ('control', 'links, the ib_device, configuration and sysfs, DCB',
     'link.h link.c device.c unplug.c main.c config.h qos_cfg.c qos_sysfs.c '
     'dcb.h dcb.c'),
]
# The files whose calls may form a cycle: the transport core proper.
CYCLE = set('cnp.c comp.c loopback.c mcast.c qp.c sq.c rq.c req.c resp.c respgen.c rp.c '
            'rx.c srq.c tx.c'.split())

layer_of = {}
for rank, (name, _, members) in enumerate(LAYERS):
    for m in members.split():
        layer_of[m] = (rank, name)


def stem(path):
    return os.path.basename(path)


def main(argv):
    src = '.'
    objs = None
    use_objs = True
    it = iter(argv)
    for a in it:
        if a == '--src':
            src = next(it)
        elif a == '--objs':
            objs = next(it)
        elif a == '--no-objs':
            use_objs = False
        else:
            print(__doc__, file=sys.stderr)
            return 2
    objs = objs or os.path.join(src, 'drivers/sroce')
    bad = []
    files = sorted(glob.glob(os.path.join(src, 'include/sroce/*.h')) +
                   glob.glob(os.path.join(src, 'drivers/sroce/*.c')))
    for f in files:
        s = stem(f)
        rel = os.path.relpath(f, src)
        if s not in layer_of:
            bad.append('%s: in no layer (add it to scripts/layers.py and '
                       'design.rst)' % rel)
            continue
        rank, name = layer_of[s]
        with open(f) as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'#include <sroce/(\w+)\.h>', line)
                if not m:
                    continue
                inc = m.group(1) + '.h'
                if inc not in layer_of:
                    continue
                irank, iname = layer_of[inc]
                if irank > rank:
                    bad.append('%s:%d: the %s layer includes %s of the %s '
                               'layer above it' % (rel, n, name, inc, iname))
    if use_objs:
        bad += check_objects(src, objs)
    for b in bad:
        print('layers: ' + b)
    return 1 if bad else 0


def nm(path):
    out = subprocess.run(['nm', path], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDRB':
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            undefined.add(p[1])
    return defined, undefined


def declared(header):
    """Functions and objects a header declares extern (not inline)."""
    with open(header) as fh:
        text = fh.read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'static inline[^{;]*\{(?:[^{}]|\{[^{}]*\})*\}', '', text,
                  flags=re.S)
    names = set(re.findall(r'^[a-z][\w \*]*?\b(sroce_\w+)\s*\(', text, re.M))
    names |= set(re.findall(r'^extern [^;]*?\b(sroce_\w+)\b', text, re.M))
    return names


def check_objects(src, objs):
    bad = []
    owner = {}
    graph = collections.defaultdict(set)
    undef = {}
    cfiles = sorted(glob.glob(os.path.join(src, 'drivers/sroce/*.c')))
    for c in cfiles:
        o = os.path.join(objs, stem(c)[:-2] + '.o')
        if not os.path.exists(o) or os.path.getmtime(o) < os.path.getmtime(c):
            return ['%s is missing or older than its source: build the '
                    'module first (make modules)' % os.path.relpath(o, src)]
        d, u = nm(o)
        for sym in d:
            owner[sym] = stem(c)
        undef[stem(c)] = u
    for f, u in undef.items():
        for sym in u:
            if sym in owner and owner[sym] != f:
                graph[f].add(owner[sym])
    for h in sorted(glob.glob(os.path.join(src, 'include/sroce/*.h'))):
        hs = stem(h)
        if hs not in layer_of:
            continue
        for sym in sorted(declared(h)):
            f = owner.get(sym)
            if f and f in layer_of and layer_of[f] != layer_of[hs]:
                bad.append('include/sroce/%s declares %s, defined in %s '
                           'of the %s layer' % (hs, sym, f, layer_of[f][1]))
    for comp in sccs(graph, [stem(c) for c in cfiles]):
        if len(comp) > 1 and set(comp) != CYCLE:
            bad.append('call cycle among %s (the transport core is %s)' %
                       (' '.join(sorted(comp)), ' '.join(sorted(CYCLE))))
    return bad


def sccs(graph, nodes):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
