#!/usr/bin/env python3
"""merged_check.py ARCHIVE/traces.otf2 — an independent check of a merged
archive, read with OTF2's Python reader (not synctrace's code): per-location
timestamps never decrease, and every message, matched first-in-first-out per
(communicator, sender, receiver, tag) with receives in posting order, is
received at or after it was sent. Prints one line:
    events E messages M tachyons T nonmonotonic N unmatched_sends S unmatched_receives R
"""
import collections
import sys

import otf2


def main(path):
    sends = collections.defaultdict(collections.deque)     # channel -> send times, in issue order
    posted = collections.defaultdict(list)                 # receiver location -> [(post index, channel, time)]
    pending = {}                                           # (location, request id) -> post index
    post_counter = collections.Counter()
    last = {}
    events = nonmonotonic = 0
    with otf2.reader.open(path) as trace:
        world = {}
        for comm in trace.definitions.comms:
            world[comm] = [loc._ref for loc in comm.group.members]
        for loc, ev in trace.events:
            events += 1
            if ev.time < last.get(loc, 0):
                nonmonotonic += 1
            last[loc] = ev.time
            kind = type(ev).__name__
            me = loc._ref
            if kind in ("MpiSend", "MpiIsend"):
                ch = (ev.communicator._ref, me, world[ev.communicator][ev.receiver], ev.msg_tag)
                sends[ch].append(ev.time)
            elif kind == "MpiRecv":
                post_counter[me] += 1
                ch = (ev.communicator._ref, world[ev.communicator][ev.sender], me, ev.msg_tag)
                posted[me].append((post_counter[me], ch, ev.time))
            elif kind == "MpiIrecvRequest":
                post_counter[me] += 1
                pending[(me, ev.request_id)] = post_counter[me]
            elif kind == "MpiIrecv":
                idx = pending.pop((me, ev.request_id), None)
                if idx is None:
                    post_counter[me] += 1
                    idx = post_counter[me]
                ch = (ev.communicator._ref, world[ev.communicator][ev.sender], me, ev.msg_tag)
                posted[me].append((idx, ch, ev.time))
            elif kind == "MpiRequestCancelled":
                pending.pop((me, ev.request_id), None)
    messages = tachyons = unmatched_recvs = 0
    for me, lst in posted.items():
        for _, ch, t in sorted(lst):
            q = sends.get(ch)
            if not q:
                unmatched_recvs += 1
                continue
            messages += 1
            if t < q.popleft():
                tachyons += 1
    unmatched_sends = sum(len(q) for q in sends.values())
    print("events %d messages %d tachyons %d nonmonotonic %d unmatched_sends %d unmatched_receives %d"
          % (events, messages, tachyons, nonmonotonic, unmatched_sends, unmatched_recvs))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: merged_check.py ARCHIVE/traces.otf2")
    main(sys.argv[1])
