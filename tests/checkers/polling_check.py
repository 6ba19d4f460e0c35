#!/usr/bin/env python3
"""polling_check.py ARCHIVE.otf2... — the polling calls a merged archive
(traces.otf2) stands for, read with OTF2's Python reader (not synctrace's
code; it cannot read a raw rank archive, whose groups name other ranks). An Enter carrying the collapsed_calls attribute is a
run of that many calls (src/polling.h); any other Enter is one call. Prints,
per rank (all its threads) and polling region:
    calls RANK REGION N regions R runs LIST
where R counts Enter events and LIST the collapsed_calls values in order
("-" for none). Exits 1 when an archive cannot be read."""
import re
import sys

import otf2

POLLING = ("MPI_Test", "MPI_Testany", "MPI_Testsome", "MPI_Testall", "MPI_Iprobe", "MPI_Improbe",
           "MPI_Request_get_status")


def main(paths):
    calls, regions, runs = {}, {}, {}
    for path in paths:
        with otf2.reader.open(path) as trace:
            attr = next((a for a in trace.definitions.attributes if a.name == "collapsed_calls"), None)
            for loc, ev in trace.events:
                if not isinstance(ev, otf2.events.Enter) or ev.region.name not in POLLING:
                    continue
                m = re.match(r"MPI Rank (\d+)", loc.group.name)
                key = (int(m.group(1)) if m else -1, ev.region.name)
                n = 1
                if attr is not None and ev.attributes is not None and attr in ev.attributes:
                    n = int(ev.attributes[attr])
                    runs.setdefault(key, []).append(n)
                calls[key] = calls.get(key, 0) + n
                regions[key] = regions.get(key, 0) + 1
    for key in sorted(calls):
        print("calls %d %s %d regions %d runs %s" % (key[0], key[1], calls[key], regions[key],
                                                    ",".join(map(str, runs.get(key, []))) or "-"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:   # one clear line, never a traceback
        sys.stderr.write("polling_check.py: %s\n" % e)
        sys.exit(1)
