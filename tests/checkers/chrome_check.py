#!/usr/bin/env python3
"""Checks `synctrace export --format chrome` output against the trace-event
format and against the merged archive it came from.

Prints TAP-like "ok - X" / "not ok - X" lines (tests/lib.sh tap_from_checker):
  - the file is JSON with a traceEvents list; every event has ph, pid, tid,
    and every timed event a numeric ts;
  - timestamps are microseconds: ts * 1000 is the archive's ns time (the
    largest ts is the archive's last event, divided by 1000);
  - per track, B/E events come in time order and nest (each E closes the
    innermost open B of the same name; nothing left open);
  - every flow id has exactly one "s" and one "f", the "f" not before the
    "s", both inside a slice of their tracks; ends left alone are exactly
    the report's unmatched sends and receives;
  - the flows are exactly the messages a brute-force matcher finds in the
    archive (sort by key, posting order: docs/design.md, "The merge: stages");
  - counts equal the archive's: slices = Enter events, collective slices =
    MpiCollectiveEnd events, flows = report.json's messages.
Usage: chrome_check.py TRACE.json REPORT.json TRACES.otf2   (needs python3-otf2)
"""
import bisect
import collections
import json
import sys

import otf2

from merged_check import fix_intercomm_fields   # python3-otf2 3.0 cannot read InterComm otherwise


class Check:
    def __init__(self):
        self.failed = 0

    def __call__(self, cond, what):
        print(('ok - ' if cond else 'not ok - ') + what)
        self.failed |= not cond


def label(loc):
    """What the exports call a location (format/mtread.c): its process
    for the process's main location, "<process> thread K" for thread K."""
    g = loc.group
    if loc._ref == g._ref:
        return g.name
    if loc._ref >> 32 and loc._ref & 0xffffffff == g._ref:
        return "%s thread %d" % (g.name, loc._ref >> 32)
    return "%s %s" % (g.name, loc.name)


def archive_facts(path):
    """Counts and a brute-force message matching of the merged archive.
    A rank's threads are locations of one process (location group): they
    share its channels, their sends and receives interleave by time, a
    blocking receive posted when its call began."""
    counts = collections.Counter()
    sends, recvs = [], []          # (key, order, (location, time_ns))
    last = 0
    cancelled = set()              # (location, request id, index of the Isend) of cancelled sends
    fix_intercomm_fields()
    with otf2.reader.open(path) as t:
        posted = collections.defaultdict(dict)   # location -> request -> posting order
        entered = {}                             # location -> when its current call began
        isends = {}                              # (location, request) -> index of the open Isend
        index = collections.Counter()
        for loc, ev in t.events:
            name = type(ev).__name__
            counts[name] += 1
            last = max(last, ev.time)
            i = index[label(loc)]
            index[label(loc)] += 1
            proc = loc.group.name
            if name == 'Enter':
                entered[label(loc)] = ev.time
            if name in ('MpiSend', 'MpiIsend'):
                dst = label(ev.communicator.group.members[ev.receiver])
                sends.append(((ev.communicator.name, proc, dst, ev.msg_tag), (label(loc), i), (label(loc), ev.time)))
                if name == 'MpiIsend':
                    isends[(label(loc), ev.request_id)] = i
            elif name == 'MpiIsendComplete':
                isends.pop((label(loc), ev.request_id), None)
            elif name == 'MpiRequestCancelled':
                posted[label(loc)].pop(ev.request_id, None)
                if (label(loc), ev.request_id) in isends:
                    cancelled.add((label(loc), isends.pop((label(loc), ev.request_id))))
            elif name == 'MpiIrecvRequest':
                posted[label(loc)][ev.request_id] = (ev.time, label(loc), i)
            elif name in ('MpiRecv', 'MpiIrecv'):
                order = (posted[label(loc)].pop(ev.request_id, (ev.time, label(loc), i)) if name == 'MpiIrecv'
                         else (entered.get(label(loc), ev.time), label(loc), i))
                src = label(ev.communicator.group.members[ev.sender])
                recvs.append(((ev.communicator.name, src, proc, ev.msg_tag), order, (label(loc), ev.time)))
    by_key = collections.defaultdict(lambda: ([], []))
    for key, order, end in sends:
        if order not in cancelled:
            by_key[key][0].append(((end[1], order[0], order[1]), end))
    for key, order, end in recvs:
        by_key[key][1].append((order, end))
    pairs = set()
    for s, r in by_key.values():
        s.sort()
        r.sort()
        for a, b in zip(s, r):
            pairs.add((a[1], b[1]))
    return counts, pairs, last


def main():
    check = Check()
    try:
        doc = json.load(open(sys.argv[1]))
        events = doc['traceEvents']
        ok = isinstance(events, list)
    except (OSError, ValueError, KeyError, TypeError) as e:
        check(False, 'the file is trace-event JSON (%s)' % e)
        return 1
    check(ok, 'the file is JSON with a traceEvents list (%d events)' % len(events))
    report = json.load(open(sys.argv[2]))
    counts, oracle_pairs, last_ns = archive_facts(sys.argv[3])
    names = {}
    for e in events:
        if e.get('ph') == 'M' and e.get('name') == 'thread_name':
            names[(e['pid'], e['tid'])] = e['args']['name']

    well_formed = all('ph' in e and 'pid' in e and 'tid' in e and (e['ph'] == 'M' or isinstance(e.get('ts'), (int, float)))
                      for e in events)
    check(well_formed, 'every event has ph, pid, tid, and a numeric ts unless metadata')
    timed = [e for e in events if e['ph'] != 'M']
    exact = all(abs(e['ts'] * 1000 - round(e['ts'] * 1000)) < 1e-3 for e in timed)
    max_ts = max(e['ts'] for e in timed)
    check(exact and round(max_ts * 1000) == last_ns,
          'timestamps are microseconds: largest ts %.3f us = last archive event %d ns / 1000' % (max_ts, last_ns))

    # slices: order and nesting per track
    stacks = collections.defaultdict(list)
    lastts = collections.defaultdict(float)
    tops = collections.defaultdict(list)       # track -> [(begin, end)] of outermost slices
    order_ok = nest_ok = True
    slices = coll_slices = 0
    for e in timed:
        tr = (e['pid'], e['tid'])
        if e['ph'] in 'BE':
            if e['ts'] < lastts[tr]:
                order_ok = False
            lastts[tr] = e['ts']
        if e['ph'] == 'B':
            stacks[tr].append((e['name'], e['ts']))
            slices += 1
        elif e['ph'] == 'E':
            if not stacks[tr] or stacks[tr][-1][0] != e['name']:
                nest_ok = False
                continue
            name, begin = stacks[tr].pop()
            if not stacks[tr]:
                tops[tr].append((begin, e['ts']))
            if 'collective' in e.get('args', {}):
                coll_slices += 1
    check(order_ok, 'per track, slice begins and ends are in time order')
    check(nest_ok and not any(stacks.values()), 'slices nest: every E closes the innermost B, none left open')
    check(slices == counts['Enter'], 'one slice per Enter event (%d, archive %d)' % (slices, counts['Enter']))
    check(coll_slices == counts['MpiCollectiveEnd'],
          'collectives visible: %d collective slices, archive %d MpiCollectiveEnd' % (coll_slices, counts['MpiCollectiveEnd']))

    # the program's work marked: global instants where the first MPI_Init ends and the last MPI_Finalize begins
    marks = {e['name']: e['ts'] for e in timed if e['ph'] == 'i' and e.get('s') == 'g'}
    init_ends = [e['ts'] for e in timed if e['ph'] == 'E' and e['name'] in ('MPI_Init', 'MPI_Init_thread')]
    fin_begins = [e['ts'] for e in timed if e['ph'] == 'B' and e['name'] == 'MPI_Finalize']
    want = ({'program begins (MPI_Init ends)': min(init_ends), 'program ends (MPI_Finalize begins)': max(fin_begins)}
            if init_ends and fin_begins else {})
    check(marks == want, 'the program\'s work is marked by two global instants (%s; want %s)' % (marks, want))

    def inside(e):
        tr = tops[(e['pid'], e['tid'])]
        k = bisect.bisect_right(tr, (e['ts'], float('inf'))) - 1
        return k >= 0 and tr[k][0] <= e['ts'] <= tr[k][1]

    flows = collections.defaultdict(lambda: {'s': [], 'f': []})
    for e in timed:
        if e['ph'] in ('s', 'f'):
            flows[e['id']][e['ph']].append(e)
    both = [v for v in flows.values() if len(v['s']) == 1 and len(v['f']) == 1]
    only_s = sum(1 for v in flows.values() if len(v['s']) == 1 and not v['f'])
    only_f = sum(1 for v in flows.values() if len(v['f']) == 1 and not v['s'])
    dup = sum(1 for v in flows.values() if len(v['s']) > 1 or len(v['f']) > 1)
    check(dup == 0, 'no flow id is used twice (%d ids)' % len(flows))
    check(only_s == report['unmatched_sends'] and only_f == report['unmatched_receives'],
          'flow ends without a partner are exactly the unmatched ones (%d sends, %d receives; report %d, %d)'
          % (only_s, only_f, report['unmatched_sends'], report['unmatched_receives']))
    check(len(both) == report['messages'], 'one flow with both ends per message (%d, report %d)' % (len(both), report['messages']))
    check(all(v['s'][0]['ts'] <= v['f'][0]['ts'] for v in both), 'no flow ends before it starts (synchronised time)')
    check(all(inside(v['s'][0]) and inside(v['f'][0]) for v in both), 'both ends of every flow lie inside a slice')
    check(all(v['f'][0].get('bp') == 'e' for v in both), 'flow ends bind to the enclosing slice (bp=e)')
    got = set()
    for v in both:
        s, f = v['s'][0], v['f'][0]
        got.add(((names[(s['pid'], s['tid'])], round(s['ts'] * 1000)), (names[(f['pid'], f['tid'])], round(f['ts'] * 1000))))
    check(got == oracle_pairs, 'the flows pair exactly the messages a brute-force matcher pairs (%d; oracle %d, %d differ)'
          % (len(got), len(oracle_pairs), len(got ^ oracle_pairs)))
    return check.failed


if __name__ == '__main__':
    sys.exit(main())
