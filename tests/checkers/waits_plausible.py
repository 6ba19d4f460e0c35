#!/usr/bin/env python3
"""waits_plausible.py OUT — `synctrace waits --json` on a real client's
merged archive, judged against the archive read with OTF2's Python reader
(not synctrace's code). Prints one TAP-ish line, "ok - ..." or
"not ok - ...":
  - every row and total: 0 <= lo <= seconds <= hi (hi null: unbounded),
    count_sure <= count <= count_possible, and where the trace has true
    times (SYNCTRACE_SKEW) the true total inside [lo, hi];
  - no wait larger than its region's time: each row's seconds at most the
    time its rank spent in that region (the sum of the region's Enter to
    Leave on the rank's locations) -- a wait happens inside the call it is
    counted in;
  - nothing of the trace left out: no message unmatched, no collective
    incomplete, no PSCW epoch unpaired.
Real clients have no injected waits: this says the figures are possible,
not that they are right (tests/test-waits.sh does that)."""
import collections
import json
import sys

import otf2

from merged_check import fix_intercomm_fields   # python3-otf2 3.0 cannot read an InterComm without it

EPS = 1e-9   # seconds: the rounding of ns sums


def truth_eps(r):
    """The true times are whole ns per event: each of a wait's two ends is
    off by less than 1 ns (a float sum of n waits lands on a whole ns too:
    2 ns each, not 1, so the comparison is not at a float's edge)."""
    return 2 * EPS * max(1, r["count_possible"], r["count"])


def region_time(path):
    """(world rank, region name) -> seconds in it, from the events."""
    spent = collections.Counter()
    with otf2.reader.open(path) as trace:
        rank_of, world = {}, None
        for g in trace.definitions.groups:
            if g.group_type == otf2.GroupType.COMM_LOCATIONS:
                world = g
        if world is not None:
            for r, loc in enumerate(world.members):
                rank_of[loc._ref] = r
        group_rank = {loc.group._ref: rank_of[loc._ref] for loc in trace.definitions.locations if loc._ref in rank_of}
        res = trace.definitions.clock_properties.timer_resolution
        stacks = collections.defaultdict(list)
        for loc, ev in trace.events:
            if isinstance(ev, otf2.events.Enter):
                stacks[loc._ref].append(ev.time)
            elif isinstance(ev, otf2.events.Leave) and stacks[loc._ref]:
                t0 = stacks[loc._ref].pop()
                rank = rank_of.get(loc._ref, group_rank.get(loc.group._ref, loc._ref & 0xFFFFFFFF))
                spent[(rank, ev.region.name)] += (ev.time - t0) / res
    return spent


def main(out):
    fix_intercomm_fields()
    w = json.load(open(out + "/waits.json"))
    bad = []
    for r in w["waits"] + w["totals"]:
        hi = r["hi"] if r["hi"] is not None else float("inf")
        ts = r.get("true_seconds")
        if not (0 <= r["lo"] <= r["seconds"] + EPS and r["seconds"] <= hi + EPS
                and r["count_sure"] <= r["count"] <= r["count_possible"]
                and (ts is None or r["lo"] - truth_eps(r) <= ts <= hi + truth_eps(r))):
            bad.append(r)
    if bad:
        print("not ok - %d rows outside 0 <= lo <= seconds <= hi (or the true total outside): %s" % (len(bad), bad[:2]))
        return 1
    spent = region_time(out + "/traces.otf2")
    over = [(r, spent.get((r["rank"], r["region"]), 0.0)) for r in w["waits"]
            if r["seconds"] > spent.get((r["rank"], r["region"]), 0.0) + EPS * max(1, r["count"])]
    if over:
        r, s = over[0]
        print("not ok - %d rows wait longer than their region's time: %s %s rank %d %.9f s in %.9f s"
              % (len(over), r["pattern"], r["region"], r["rank"], r["seconds"], s))
        return 1
    left = {k: w.get(k, 0) for k in ("messages_unmatched", "collectives_incomplete", "epochs_unpaired")}
    if any(left.values()):
        print("not ok - left out: %s" % left)
        return 1
    true = sum(1 for r in w["totals"] if r.get("true_seconds") is not None)
    print("ok - %d rows, %d patterns (%d with true totals inside their bounds), %.6f s waited, "
          "none longer than its region, nothing left out"
          % (len(w["waits"]), len(w["totals"]), true, sum(r["seconds"] for r in w["totals"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
