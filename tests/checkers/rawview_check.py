#!/usr/bin/env python3
"""Checks OUT/rawview.map against a brute-force recomputation.

For every event of every rank: its raw time as today's tools show it (the
recorded time plus the rank's ClockOffsets interpolated linearly and, as
OTF2 3.0's reader does, extrapolated with the first and last interval's slope
beyond them; from `synctrace dump RAW` output), shifted so the run's earliest
event is 0, must equal the map's value at the event's merged time (read
from the merged archive with python3-otf2) within 1 ns. The map must be
short: a few breakpoints per rank, not one per event.
Prints "ok - X" / "not ok - X" lines.
Usage: rawview_check.py DUMP.txt TRACES.otf2 rawview.map
"""
import bisect
import collections
import re
import sys

import otf2

from merged_check import fix_intercomm_fields   # python3-otf2 3.0 cannot read InterComm otherwise


def interpolated(t, offsets, res):
    """what otf2-print shows: the interval holding t (the first before the
    first offset, the last after the last), its slope, rounded to a tick"""
    off = 0.0
    if len(offsets) == 1:
        off = offsets[0][1]
    elif len(offsets) >= 2:
        k = 0
        while k + 2 < len(offsets) and t > offsets[k + 1][0]:
            k += 1
        (ta, oa), (tb, ob) = offsets[k], offsets[k + 1]
        slope = (ob - oa) / (tb - ta) if tb > ta else 0.0
        off = oa + round(slope * (t - ta))
    return (t + off) / res * 1e9


def main():
    res, offsets, times = {}, collections.defaultdict(list), collections.defaultdict(list)
    for line in open(sys.argv[1]):
        if line.startswith('#'):
            m = re.match(r'# rank (\d+) .* resolution (\d+) ', line)
            if m:
                res[int(m.group(1))] = int(m.group(2))
            m = re.match(r'# rank (\d+) clock_offset time=(\d+) offset=(-?\d+)', line)
            if m:
                offsets[int(m.group(1))].append((int(m.group(2)), int(m.group(3))))
            continue
        f = line.split()
        times[int(f[0])].append(int(f[3].split('=')[1]))
    raw = {r: [interpolated(t, offsets[r], res[r]) for t in ts] for r, ts in times.items()}
    origin = min(v[0] for v in raw.values() if v)

    merged = collections.defaultdict(list)
    fix_intercomm_fields()
    with otf2.reader.open(sys.argv[2]) as t:
        for loc, ev in t.events:
            merged[int(loc.group.name.split()[-1])].append(ev.time)

    lines = open(sys.argv[3]).read().split('\n')
    ok_header = lines[0] == 'synctrace-rawview 2' and lines[1] == 'ranks %d' % len(times)
    print(('ok' if ok_header else 'not ok') + ' - rawview.map: version-2 header, one entry per rank')
    maps, i = {}, 2
    while i < len(lines) and lines[i].startswith('rank '):
        _, r, n = lines[i].split()
        pts = [(int(l.split()[0]), float(l.split()[1]), float(l.split()[2])) for l in lines[i + 1:i + 1 + int(n)]]
        maps[int(r)] = pts
        i += 1 + int(n)

    def at(pts, i, g):
        # the last breakpoint at or before event i, and the piece to the next one
        if len(pts) == 1:
            return pts[0][2] + g - pts[0][1]
        k = bisect.bisect_right([p[0] for p in pts], i) - 1
        if k == len(pts) - 1:
            (_, ga, ra), (_, gb, rb) = pts[k - 1], pts[k]
            return rb + (rb - ra) * (g - gb) / (gb - ga) if gb > ga else rb + g - gb
        (_, ga, ra), (_, gb, rb) = pts[k], pts[k + 1]
        return ra + (rb - ra) * (g - ga) / (gb - ga) if gb > ga else ra + g - ga

    worst, nevents, npts = 0.0, 0, 0
    same_counts = all(len(merged[r]) == len(raw[r]) for r in raw)
    for r in raw:
        pts = maps.get(r, [])
        npts += len(pts)
        for i, (g, x) in enumerate(zip(merged[r], raw[r])):
            worst = max(worst, abs(at(pts, i, g) - (x - origin)) if pts else float('inf'))
            nevents += 1
    print(('ok' if same_counts and worst <= 1.0 else 'not ok') +
          ' - the map gives every one of %d events its raw time within 1 ns (worst %.3f ns)' % (nevents, worst))
    print(('ok' if npts <= 4 * len(raw) + nevents // 100 else 'not ok') +
          ' - the map is short: %d breakpoints for %d events' % (npts, nevents))


if __name__ == '__main__':
    main()
