#!/usr/bin/env python3
"""merged_check.py ARCHIVE/traces.otf2 — an independent check of a merged
archive, read with OTF2's Python reader (not synctrace's code): per-location
timestamps never decrease, and every message, matched first-in-first-out per
(communicator, sender, receiver, tag) with receives in posting order, is
received at or after it was sent. A rank's threads are locations of their
own (id thread << 32 | rank): their sends and receives interleave by time,
a blocking receive posted when its call began. Prints one line:
    events E messages M tachyons T nonmonotonic N unmatched_sends S unmatched_receives R
"""
import collections
import sys

import otf2


def main(path):
    sends = collections.defaultdict(list)                  # channel -> [(issue time, location, n, send time)]
    posted = collections.defaultdict(list)                 # receiver rank -> [(post time, location, n, channel, time)]
    pending = {}                                           # (location, request id) -> (post time, n)
    post_counter = collections.Counter()
    entered = {}                                           # location -> when its current call began
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
            where = loc._ref
            me = where & 0xffffffff
            post_counter[where] += 1
            n = post_counter[where]
            if kind == "Enter":
                entered[where] = ev.time
            elif kind in ("MpiSend", "MpiIsend"):
                ch = (ev.communicator._ref, me, world[ev.communicator][ev.receiver], ev.msg_tag)
                sends[ch].append((ev.time, where, n, ev.time))
            elif kind == "MpiRecv":
                ch = (ev.communicator._ref, world[ev.communicator][ev.sender], me, ev.msg_tag)
                posted[me].append((entered.get(where, ev.time), where, n, ch, ev.time))
            elif kind == "MpiIrecvRequest":
                pending[(where, ev.request_id)] = (ev.time, n)
            elif kind == "MpiIrecv":
                at, m = pending.pop((where, ev.request_id), (ev.time, n))
                ch = (ev.communicator._ref, world[ev.communicator][ev.sender], me, ev.msg_tag)
                posted[me].append((at, where, m, ch, ev.time))
            elif kind == "MpiRequestCancelled":
                pending.pop((where, ev.request_id), None)
    queues = {ch: collections.deque(t for *_, t in sorted(v)) for ch, v in sends.items()}
    messages = tachyons = unmatched_recvs = 0
    for me, lst in posted.items():
        for _, _, _, ch, t in sorted(lst):
            q = queues.get(ch)
            if not q:
                unmatched_recvs += 1
                continue
            messages += 1
            if t < q.popleft():
                tachyons += 1
    unmatched_sends = sum(len(q) for q in queues.values())
    print("events %d messages %d tachyons %d nonmonotonic %d unmatched_sends %d unmatched_receives %d"
          % (events, messages, tachyons, nonmonotonic, unmatched_sends, unmatched_recvs))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: merged_check.py ARCHIVE/traces.otf2")
    main(sys.argv[1])
