#!/usr/bin/env python3
"""pscw_order_check.py ARCHIVE: in an archive of scorep_like.py --pscw's
ring (or its copy), whether each origin's k-th MPI_Win_complete is entered
before its right neighbour's k-th successful MPI_Win_wait/_test returns
(its RmaGroupSync, level not NONE), as MPI says it is. Prints
`pairs N violated V` (exit 0), or an error (exit 1)."""
import sys

import otf2
from otf2.enums import RmaSyncLevel


def main():
    completes, waits, inside = {}, {}, {}
    with otf2.reader.open(sys.argv[1]) as trace:
        for loc, ev in trace.events:
            if loc.name != "Master thread":
                continue
            r = int(loc.group.name.split()[-1])
            if isinstance(ev, otf2.events.Enter):
                inside[r] = ev.region.name
                if ev.region.name == "MPI_Win_complete":
                    completes.setdefault(r, []).append(ev.time)
            elif isinstance(ev, otf2.events.RmaGroupSync) and ev.sync_level != RmaSyncLevel.NONE \
                    and inside.get(r) in ("MPI_Win_wait", "MPI_Win_test"):
                waits.setdefault(r, []).append(ev.time)
    P = len(completes)
    if P == 0:
        print("no MPI_Win_complete in %s" % sys.argv[1])
        sys.exit(1)
    pairs = violated = 0
    for r in range(P):
        right_waits = waits.get((r + 1) % P, [])
        if len(right_waits) != len(completes[r]):
            print("rank %d: %d completes, its right neighbour %d waits" % (r, len(completes[r]), len(right_waits)))
            sys.exit(1)
        for c, w in zip(completes[r], right_waits):
            pairs += 1
            violated += w <= c
    print("pairs %d violated %d" % (pairs, violated))


if __name__ == "__main__":
    main()
