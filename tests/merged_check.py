#!/usr/bin/env python3
"""merged_check.py ARCHIVE/traces.otf2 — an independent check of a merged
archive, read with OTF2's Python reader (not synctrace's code): per-location
timestamps never decrease, and every message, matched first-in-first-out per
(communicator, sender, receiver, tag) with receives in posting order, is
received at or after it was sent. A rank's threads are locations of their
own (id thread << 32 | rank): their sends and receives interleave by time,
a blocking receive posted when its call began; a receive released by
MPI_Request_free (an MpiRequestTest with freed_receive_* attributes) takes
its turn where it was posted, its arrival unknown. Peers are resolved as OTF2
defines them: on a COMM_SELF group the location's own rank, on an InterComm
a rank of the group the location is not in. Prints one line:
    events E messages M tachyons T nonmonotonic N unmatched_sends S unmatched_receives R
With --peers, first one line per message event:
    peer RANK KIND COMM_NAME TAG PEER_WORLD_RANK
"""
import collections
import sys

import otf2


def fix_intercomm_fields():
    """python3-otf2 3.0 builds InterComm's fields as Comm's followed by its
    own (name, group, parent, flags, groupA, groupB, parent, flags), so that
    it cannot read any InterComm definition (the callback's arguments land
    in the wrong fields). Keep name, groupA, groupB, parent, flags."""
    ic = otf2.definitions.InterComm
    names = [f.name for f in ic._fields]
    if names[:4] == ["name", "group", "parent", "flags"] and names[4:6] == ["groupA", "groupB"]:
        ic._fields = (ic._fields[0],) + tuple(ic._fields[4:])


class Peers:
    """World rank of a communicator-local rank, as seen from world rank `me`."""

    def __init__(self, trace):
        self.groups = {}
        for comm in trace.definitions.comms:
            if isinstance(comm, otf2.definitions.InterComm):
                a = [loc._ref for loc in comm.groupA.members]
                b = [loc._ref for loc in comm.groupB.members]
                self.groups[comm] = ("inter", a, b)
            elif comm.group.group_type == otf2.GroupType.COMM_SELF:
                self.groups[comm] = ("self", None, None)
            else:
                self.groups[comm] = ("intra", [loc._ref for loc in comm.group.members], None)

    def world(self, comm, me, local):
        kind, a, b = self.groups[comm]
        if kind == "self":
            return me if local == 0 else -1
        if kind == "inter":
            other = b if me in a else a
            return other[local] if local < len(other) else -1
        return a[local] if local < len(a) else -1


def main(path, list_peers=False):
    fix_intercomm_fields()
    sends = collections.defaultdict(list)                  # channel -> [(issue time, location, n, send time)]
    posted = collections.defaultdict(list)                 # receiver rank -> [(post time, location, n, channel, time)]
    pending = {}                                           # (location, request id) -> (post time, n)
    post_counter = collections.Counter()
    entered = {}                                           # location -> when its current call began
    last = {}
    events = nonmonotonic = 0
    with otf2.reader.open(path) as trace:
        peers = Peers(trace)
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
                dst = peers.world(ev.communicator, me, ev.receiver)
                if list_peers:
                    print("peer %d %s %s %d %d" % (me, kind, ev.communicator.name or "-", ev.msg_tag, dst))
                ch = (ev.communicator._ref, me, dst, ev.msg_tag)
                sends[ch].append((ev.time, where, n, ev.time))
            elif kind == "MpiRecv":
                src = peers.world(ev.communicator, me, ev.sender)
                if list_peers:
                    print("peer %d %s %s %d %d" % (me, kind, ev.communicator.name or "-", ev.msg_tag, src))
                ch = (ev.communicator._ref, src, me, ev.msg_tag)
                posted[me].append((entered.get(where, ev.time), where, n, ch, ev.time))
            elif kind == "MpiIrecvRequest":
                pending[(where, ev.request_id)] = (ev.time, n)
            elif kind == "MpiIrecv":
                at, m = pending.pop((where, ev.request_id), (ev.time, n))
                src = peers.world(ev.communicator, me, ev.sender)
                if list_peers:
                    print("peer %d %s %s %d %d" % (me, kind, ev.communicator.name or "-", ev.msg_tag, src))
                ch = (ev.communicator._ref, src, me, ev.msg_tag)
                posted[me].append((at, where, m, ch, ev.time))
            elif kind == "MpiRequestCancelled":
                pending.pop((where, ev.request_id), None)
            elif kind == "MpiRequestTest" and ev.attributes:
                # a receive released by MPI_Request_free: it takes its turn
                # where it was posted; when it arrived is not known
                a = {attr.name: v for attr, v in ev.attributes.items()}
                if "freed_receive_comm" in a:
                    at, m = pending.pop((where, ev.request_id), (ev.time, n))
                    comm, src, tag = a["freed_receive_comm"], a["freed_receive_source"], a["freed_receive_tag"]
                    if src >= 0 and tag >= 0:
                        ch = (comm._ref, peers.world(comm, me, src), me, tag)
                        posted[me].append((at, where, m, ch, None))
    queues = {ch: collections.deque(t for *_, t in sorted(v)) for ch, v in sends.items()}
    messages = tachyons = unmatched_recvs = 0
    for me, lst in posted.items():
        for _, _, _, ch, t in sorted(lst):
            q = queues.get(ch)
            if not q:
                unmatched_recvs += 1
                continue
            messages += 1
            sent = q.popleft()
            if t is not None and t < sent:
                tachyons += 1
    unmatched_sends = sum(len(q) for q in queues.values())
    print("events %d messages %d tachyons %d nonmonotonic %d unmatched_sends %d unmatched_receives %d"
          % (events, messages, tachyons, nonmonotonic, unmatched_sends, unmatched_recvs))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--peers"]
    if len(args) != 1:
        sys.exit("usage: merged_check.py [--peers] ARCHIVE/traces.otf2")
    main(args[0], "--peers" in sys.argv[1:])
