#!/usr/bin/env python3
"""Checks of a raw trace taken with SYNCTRACE_SKEW, against the true times.

Reads `synctrace dump` output on stdin. Prints TAP lines (without plan) for:
  - every event carries true_time; recorded and true times never decrease;
  - the recorded clock is the true clock shifted by the injected offset and
    stretched by the injected drift (both read from the archive);
  - every ClockOffset definition: the true offset between the rank's clock
    and rank 0's clock at that moment lies within the reported bound.
Usage: sync_check.py FIRST_TAP_NUMBER [--min-offsets N]
"""
import bisect
import re
import sys


def parse(stream):
    ranks = {}
    for line in stream:
        if line.startswith('#'):
            m = re.match(r'# rank (\d+) world_size \d+ .* resolution (\d+) events \d+ skew_offset_us (\S+) skew_drift_ppm (\S+)', line)
            if m:
                r = ranks.setdefault(int(m.group(1)), {'events': [], 'offsets': []})
                r['resolution'] = int(m.group(2))
                r['skew_offset_us'] = float(m.group(3))
                r['skew_drift_ppm'] = float(m.group(4))
            m = re.match(r'# rank (\d+) clock_offset time=(\d+) offset=(-?\d+) stddev=(\S+)', line)
            if m:
                ranks[int(m.group(1))]['offsets'].append((int(m.group(2)), int(m.group(3)), float(m.group(4))))
            continue
        f = line.split()
        t = int(f[3].split('=')[1])
        truth = int(f[4].split('=')[1]) if len(f) > 4 and f[4].startswith('true=') else None
        ranks[int(f[0])]['events'].append((t, truth, f[2]))
    return ranks


class Tap:
    def __init__(self, first):
        self.n = first - 1

    def ok(self, cond, what):
        self.n += 1
        print('%s %d - %s' % ('ok' if cond else 'not ok', self.n, what))


def interpolate(xs, ys, x):
    """y at x on the piecewise-linear curve through (xs, ys), extrapolating at the ends."""
    i = bisect.bisect_left(xs, x)
    i = min(max(i, 1), len(xs) - 1)
    x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
    if x1 == x0:
        return y0
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def main(argv):
    tap = Tap(int(argv[1]) if len(argv) > 1 else 1)
    min_offsets = int(argv[3]) if len(argv) > 3 and argv[2] == '--min-offsets' else 2
    ranks = parse(sys.stdin)
    tap.ok(len(ranks) >= 2, 'trace has %d ranks' % len(ranks))
    all_true = all(e[1] is not None for r in ranks.values() for e in r['events'])
    tap.ok(all_true, 'every event carries true_time')
    mono = all(all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(r['events'], r['events'][1:]))
               for r in ranks.values())
    tap.ok(mono, 'recorded and true times never decrease on any rank')

    # distorted - true = offset + drift * (true - origin): check offset and slope.
    worst_off, worst_slope = 0.0, 0.0
    for r in ranks.values():
        ev = r['events']
        rate = r['resolution']
        first, last = ev[0], ev[-1]
        off_us = (first[0] - first[1]) / rate * 1e6
        worst_off = max(worst_off, abs(off_us - r['skew_offset_us']))
        span = last[1] - first[1]
        if span > 0:
            slope_ppm = ((last[0] - last[1]) - (first[0] - first[1])) / span * 1e6
            worst_slope = max(worst_slope, abs(slope_ppm - r['skew_drift_ppm']))
    tap.ok(worst_off < 50.0, 'recorded time is true time plus the injected offset (worst deviation %.2f us, '
           'allowing for drift since the origin)' % worst_off)
    tap.ok(worst_slope < 0.5, 'recorded clock runs at the injected drift (worst deviation %.3f ppm)' % worst_slope)

    # ClockOffsets: global (rank 0's clock in this rank's units) - local, within the bound.
    r0 = ranks[0]
    xs0 = [e[1] for e in r0['events']]
    ys0 = [e[0] for e in r0['events']]
    enough = all(len(r['offsets']) >= min_offsets for r in ranks.values())
    tap.ok(enough, 'every location has at least %d ClockOffset definitions' % min_offsets)
    worst_excess, worst_err_us, n = -1e18, 0.0, 0
    for rank, r in ranks.items():
        if rank == 0:
            continue
        xs = [e[0] for e in r['events']]
        ys = [e[1] for e in r['events']]
        scale = r['resolution'] / r0['resolution']
        for time, offset, bound in r['offsets']:
            truth = interpolate(xs, ys, time)
            ref = interpolate(xs0, ys0, truth) * scale
            err = (time + offset) - ref
            n += 1
            # slack: 2 ticks of rounding and 0.2 us of interpolation between events
            excess = abs(err) - (bound + 2 + 0.2e-6 * r['resolution'])
            worst_excess = max(worst_excess, excess)
            worst_err_us = max(worst_err_us, abs(err) / r['resolution'] * 1e6)
    tap.ok(n > 0 and worst_excess <= 0, 'all %d ClockOffsets lie within their reported bound of the true offset '
           '(worst error %.3f us)' % (n, worst_err_us))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
