#!/usr/bin/env python3
"""conformance_check.py MERGED_DIR [PEERS_PREFIX NP] — an outside reviewer's
check of a merged archive and its report, for tests/test-conformance.sh and
tests/test-clients.sh. It reads MERGED_DIR/traces.otf2 with OTF2's Python
reader and MERGED_DIR/report.json, and shares no code with synctrace.

Exit status: 0 when every check passed, 1 when one did not, 2 when the
archive or report could not be read. It prints one line per check, "ok -
NAME: detail" or "not ok - NAME: detail",
NAME one of:
  monotonic     per location, merged times and true times never decrease
  tachyons      every message, paired by this script first-in-first-out per
                (communicator, world sender, world receiver, tag), receives in
                posting order, is received at or after it was sent
  dataflow      in every collective, an entry precedes each exit that waits
                for its data: Barrier always; rooted ones between the root and
                the ranks that send or receive bytes (neighbourhood
                collectives skipped: they follow the topology); Allreduce, Allgather(v),
                Alltoall, Reduce_scatter(_block) and Scan between ranks that
                send and ranks that receive (v/w all-to-all skipped: the
                archive does not say which peer gets bytes); on an
                InterComm the same across its two groups, a rooted one's
                root found as the member that records OTF2's ROOT_SELF
  matched       no send and no receive is left without a partner; a send is
                allowed to stay open only against a receive request that was
                posted and never completed (MPI_Request_free) on its receiver.
                Processes outside the trace (another job's: spawned, parent,
                connected), location groups under the system-tree node
                "outside the trace", must have no events; messages with them
                have no partner to find: they are counted apart and the
                counts must equal the report's "outside" ones
  peers         (with PEERS_PREFIX) the world (sender, receiver) of every
                message equals what the program announced in PREFIX.0..NP-1
  bounds        every clock's true offset to the reference, measured here
                from true_time, lies inside the report's bounds, and the
                report says so
  error         the report's error against true time equals the one measured
                here (the residuals of a least-squares line through merged
                minus true time), within 1 ns + 0.5 %
  records       (with PEERS_PREFIX) the names, RMA windows, RMA operations
                and Cartesian topologies the program announced are in the
                archive's definitions and events
  rma           every RmaPut / RmaGet / RmaAtomic is completed by exactly
                one later RmaOpCompleteRemote (same location, window and
                matching id); per location, window and target, every
                RmaReleaseLock closes an RmaRequestLock and none stays open
                (remote OTF2_UNDEFINED_UINT32: MPI_Win_lock_all's "every
                process"); with PEERS_PREFIX, the operations ("rma WINDOW
                KIND WORLD_TARGET SENT RECEIVED", KIND put, get or the
                atomic type), locks ("lock WINDOW WORLD_TARGET|all TYPE")
                and local completions of request-based operations
                (RmaOpCompleteNonBlocking, each of an operation issued
                before on that location, once; "local WINDOW")
                each rank announced for its windows are exactly the events
                of its location on those windows, the target translated
                from a rank of the window's communicator to a world rank
  report        the report counts no unmatched message, incomplete
                collective, tachyon or non-monotonic event
  life          communicator life events (tests/checkers/mapping_check.py comm_life):
                every communicator flagged CREATE_DESTROY_EVENTS has one
                CommCreate per member rank before its first use and at most
                one CommDestroy after its last, none on a non-member, each
                inside the call that made or ended it
Messages on the tracer's own communicator ("synctrace sync") are not program
messages: they are paired and checked but not compared with the program's.
"""
import bisect
import collections
import json
import os
import statistics
import sys

import otf2

SYNC_COMM = "synctrace sync"
OUTSIDE_NODE = "outside the trace"
UNDEF = 0xFFFFFFFF
ROOT_SELF = 0xFFFFFFFE        # OTF2_COLLECTIVE_ROOT_SELF


def repair_intercomm_definition():
    """python3-otf2 3.0 declares InterComm's fields as Comm's (name, group,
    parent, flags) followed by its own (groupA, groupB, parent, flags), so
    reading any InterComm definition fails (the reader's callback gets five
    values for eight fields). Its own fields are name, groupA, groupB,
    parent, flags: drop the three borrowed from Comm."""
    fields = otf2.definitions.InterComm._fields
    names = [f.name for f in fields]
    if names == ["name", "group", "parent", "flags", "groupA", "groupB", "parent", "flags"]:
        otf2.definitions.InterComm._fields = (fields[0],) + tuple(fields[4:])


failed = []


def say(ok, name, detail):
    print("%s - %s: %s" % ("ok" if ok else "not ok", name, detail))
    if not ok:
        failed.append(name)


class Comms:
    """World ranks of the members of communicators, from the definitions."""

    def __init__(self, defs):
        self.rank_of_loc = {}
        world = None
        for g in defs.groups:
            if g.group_type == otf2.GroupType.COMM_LOCATIONS:
                world = g
        if world is not None:
            for r, loc in enumerate(world.members):
                self.rank_of_loc[loc._ref] = r
        by_group = {}
        for loc in defs.locations:   # a rank's other threads share its location group
            if loc._ref in self.rank_of_loc:
                by_group[loc.group._ref] = self.rank_of_loc[loc._ref]
        for loc in defs.locations:
            if loc._ref not in self.rank_of_loc and loc.group._ref in by_group:
                self.rank_of_loc[loc._ref] = by_group[loc.group._ref]
        self.outside = {self.rank_of_loc.get(loc._ref) for loc in defs.locations
                        if loc.group.system_tree_parent is not None
                        and loc.group.system_tree_parent.name == OUTSIDE_NODE}
        self.outside_events = sum(loc.number_of_events for loc in defs.locations
                                  if self.rank_of_loc.get(loc._ref) in self.outside)
        self.cache = {}

    def rank(self, loc):
        return self.rank_of_loc.get(loc._ref, loc._ref & 0xFFFFFFFF)

    def members(self, group):
        if group is None:
            return None
        if group.group_type == otf2.GroupType.COMM_SELF:
            return None   # rank-local: every rank is alone in it
        return [self.rank(m) for m in group.members]

    def sides(self, comm, me):
        """(local group, remote group) as world-rank lists, None for rank-local."""
        key = (comm._ref, type(comm).__name__, me)
        if key in self.cache:
            return self.cache[key]
        if isinstance(comm, otf2.definitions.InterComm):
            a, b = self.members(comm.groupA), self.members(comm.groupB)
            res = (a, b) if a is not None and me in a else (b, a)
        else:
            m = self.members(comm.group)
            res = ([me], [me]) if m is None else (m, m)
        self.cache[key] = res
        return res

    def peer(self, comm, me, index):
        _, remote = self.sides(comm, me)
        if remote is None or not 0 <= index < len(remote):
            return None
        return remote[index]


def read(path):
    ev_list = []   # (loc ref, rank, kind, event, per-location index)
    with otf2.reader.open(path) as trace:
        comms = Comms(trace.definitions)
        count = collections.Counter()
        for loc, ev in trace.events:
            i = count[loc._ref]
            count[loc._ref] += 1
            ev_list.append((loc._ref, comms.rank(loc), type(ev).__name__, ev, i))
    return comms, ev_list


def true_time(ev):
    for attr, value in (ev.attributes or {}).items():
        if attr.name == "true_time":
            return value
    return None


def check_messages(comms, events, peers_expected, report):
    sends = collections.defaultdict(list)     # channel -> [(time, loc, index)]
    recvs = collections.defaultdict(list)     # channel -> [(post time, loc, post index, time)]
    pending = {}                              # (loc, request) -> (post time, index, rank)
    entered = {}
    unresolved = out_sends = out_recvs = 0
    sync_comm = set()
    for loc, me, kind, ev, i in events:
        if kind == "Enter":
            entered[loc] = (ev.time, i)
        elif kind in ("MpiSend", "MpiIsend"):
            to = comms.peer(ev.communicator, me, ev.receiver)
            if to is None:
                unresolved += 1
                continue
            if to in comms.outside:
                out_sends += 1
                continue
            if ev.communicator.name == SYNC_COMM:
                sync_comm.add(ev.communicator._ref)
            sends[(ev.communicator._ref, me, to, ev.msg_tag)].append((ev.time, loc, i))
        elif kind in ("MpiRecv", "MpiIrecv"):
            src = comms.peer(ev.communicator, me, ev.sender)
            if kind == "MpiRecv":
                at, idx = entered.get(loc, (ev.time, i))
            else:
                at, idx, _ = pending.pop((loc, ev.request_id), (ev.time, i, me))
            if src is None:
                unresolved += 1
                continue
            if src in comms.outside:
                out_recvs += 1
                continue
            recvs[(ev.communicator._ref, src, me, ev.msg_tag)].append((at, loc, idx, ev.time))
        elif kind == "MpiIrecvRequest":
            pending[(loc, ev.request_id)] = (ev.time, i, me)
        elif kind == "MpiRequestCancelled":
            pending.pop((loc, ev.request_id), None)
    open_recvs = collections.Counter(rank for _, _, rank in pending.values())
    messages = tachyons = unmatched_recvs = 0
    worst = 0
    pairs = collections.Counter()
    open_sends = collections.defaultdict(list)   # receiver rank -> [channel]
    for ch in set(sends) | set(recvs):
        s = sorted(sends.get(ch, []))
        r = sorted(recvs.get(ch, []))
        for (st, _, _), (_, _, _, rt) in zip(s, r):
            messages += 1
            if ch[0] not in sync_comm:
                pairs[(ch[1], ch[2])] += 1
            if rt < st:
                tachyons += 1
                worst = max(worst, st - rt)
        unmatched_recvs += max(0, len(r) - len(s))
        for _ in range(len(s) - len(r)):
            open_sends[ch[2]].append(ch)
    unexplained = 0
    for rank, chans in open_sends.items():
        explained = min(len(chans), open_recvs.get(rank, 0))
        unexplained += len(chans) - explained
        for ch in chans:
            if ch[0] not in sync_comm:
                pairs[(ch[1], ch[2])] += 1   # its peers still count
    freed = sum(len(c) for c in open_sends.values()) - unexplained
    say(tachyons == 0, "tachyons", "%d messages, %d received before they were sent (worst by %d ns)"
        % (messages, tachyons, worst))
    outside = report.get("outside", {})
    outside_ok = (comms.outside_events == 0 and outside.get("processes", 0) == len(comms.outside)
                  and outside.get("sends", 0) == out_sends and outside.get("receives", 0) == out_recvs)
    say(unexplained == 0 and unmatched_recvs == 0 and unresolved == 0 and outside_ok, "matched",
        "%d sends and %d receives without a partner, %d peers not resolvable; %d sends to freed receive requests"
        % (unexplained, unmatched_recvs, unresolved, freed)
        + ("" if not comms.outside and outside_ok else
           "; %d processes outside the trace (%d events), %d sends to and %d receives from them (report: %s)"
           % (len(comms.outside), comms.outside_events, out_sends, out_recvs, outside)))
    if peers_expected is not None:
        missing = peers_expected - pairs
        extra = pairs - peers_expected
        detail = "%d messages announced, %d found" % (sum(peers_expected.values()), sum(pairs.values()))
        if missing or extra:
            detail += "; announced but not found %s; found but not announced %s" % (
                dict(list(missing.items())[:4]), dict(list(extra.items())[:4]))
        say(not missing and not extra, "peers", detail)


FLOW_ALL = {"BARRIER"}
ONE2ALL = {"BCAST", "SCATTER", "SCATTERV"}
ALL2ONE = {"GATHER", "GATHERV", "REDUCE"}
ALL2ALL = {"ALLREDUCE", "ALLGATHER", "ALLGATHERV", "ALLTOALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"}
PREFIX = {"SCAN", "EXSCAN"}


def check_dataflow(comms, events):
    """Collect every collective's members (start, end, rank, root, sent,
    received) and check the flows that its kind and byte counts imply."""
    started = {}       # (loc, request) -> start time   (non-blocking)
    begin_at = {}      # loc -> time of the last MpiCollectiveBegin
    # A rank's collectives on a communicator, over all its threads (MPI
    # orders them per process, whichever thread calls): by time, they are
    # its 1st, 2nd, ... instance.
    per_rank = collections.defaultdict(list)   # (comm ref, comm type, rank) -> [(start, end, ...)]
    comm_of = {}
    stack = collections.defaultdict(list)      # loc -> region names entered
    neighbourly = {}   # (loc, request) -> issued by a neighbourhood collective
    for loc, me, kind, ev, i in events:
        if kind == "Enter":
            stack[loc].append(ev.region.name)
        elif kind == "Leave":
            if stack[loc]:
                stack[loc].pop()
        elif kind == "MpiCollectiveBegin":
            begin_at[loc] = ev.time
        elif kind == "NonBlockingCollectiveRequest":
            started[(loc, ev.request_id)] = ev.time
            neighbourly[(loc, ev.request_id)] = "eighbor" in (stack[loc] or [""])[-1]
        elif kind in ("MpiCollectiveEnd", "NonBlockingCollectiveComplete"):
            if kind == "MpiCollectiveEnd":
                start = begin_at.pop(loc, ev.time)
                neighbours = "eighbor" in (stack[loc] or [""])[-1]
            else:
                start = started.pop((loc, ev.request_id), ev.time)
                neighbours = neighbourly.pop((loc, ev.request_id), False)
            c = ev.communicator
            key = (c._ref, type(c).__name__)
            comm_of[key] = c
            per_rank[key + (me,)].append((start, i, ev.time, me, ev.root, ev.size_sent, ev.size_received,
                                          str(ev.collective_op).split(".")[-1], neighbours))
    instances = collections.defaultdict(list)   # (comm key, sequence) -> members
    for (cref, ctype, _), lst in per_rank.items():
        for seq, m in enumerate(sorted(lst)):   # MPI orders a communicator's collectives alike on every member
            instances[(cref, ctype, seq)].append(m)
    checked = violations = 0
    worst = 0
    example = ""
    for (cref, ctype, seq), members in instances.items():
        comm = comm_of[(cref, ctype)]
        if comm.name == SYNC_COMM:
            continue
        inter = ctype == "InterComm"
        me0 = members[0][3]
        local, remote = comms.sides(comm, me0)
        if local is None or remote is None or (not inter and len(local) < 2):
            continue   # rank-local: nothing flows between ranks
        op = members[0][7]
        if any(m[8] for m in members):
            continue   # neighbourhood collective: flows follow the topology, not the kind
        flows = []   # (from member, to member)
        if inter:
            side = {m[3]: (m[3] in local) for m in members}
            across = [(a, b) for a in members for b in members if side[a[3]] != side[b[3]]]
            if op in FLOW_ALL:
                flows = across
            elif op in ONE2ALL | ALL2ONE:
                root = [m for m in members if m[4] == ROOT_SELF]   # OTF2: MPI_ROOT is recorded as SELF
                if len(root) != 1:
                    continue
                root = root[0]
                if op in ONE2ALL:
                    flows = [(root, m) for m in members if side[m[3]] != side[root[3]] and m[6] > 0]
                else:
                    flows = [(m, root) for m in members if side[m[3]] != side[root[3]] and m[5] > 0]
            elif op in ALL2ALL:
                flows = [(a, b) for a, b in across if a[5] > 0 and b[6] > 0]
        elif op in FLOW_ALL:
            flows = [(a, b) for a in members for b in members if a is not b]
        elif op in ONE2ALL | ALL2ONE:
            root_rank = members[0][4]
            if root_rank == UNDEF or not 0 <= root_rank < len(local):
                continue
            root = [m for m in members if m[3] == local[root_rank]]
            if not root:
                continue
            root = root[0]
            if op in ONE2ALL:
                flows = [(root, m) for m in members if m is not root and m[6] > 0]
            else:
                flows = [(m, root) for m in members if m is not root and m[5] > 0]
        elif op in ALL2ALL:
            flows = [(a, b) for a in members for b in members if a is not b and a[5] > 0 and b[6] > 0]
        elif op in PREFIX:
            pos = {m[3]: local.index(m[3]) for m in members if m[3] in local}
            flows = [(a, b) for a in members for b in members
                     if a[3] in pos and b[3] in pos and a[5] > 0 and b[6] > 0
                     and (pos[a[3]] < pos[b[3]] or (op == "SCAN" and a is b))]
            flows = [f for f in flows if f[0] is not f[1]]
        for a, b in flows:
            checked += 1
            if a[0] > b[2]:
                violations += 1
                if a[0] - b[2] > worst:
                    worst = a[0] - b[2]
                    example = "%s on %s #%d: rank %d enters after rank %d leaves" % (op, comm.name, seq, a[3], b[3])
    say(violations == 0, "dataflow", "%d flows in collectives, %d exits before the entry they wait for%s"
        % (checked, violations, " (worst by %d ns, %s)" % (worst, example) if violations else ""))


def check_truth(events, report, resolution):
    """bounds and error: measured from true_time against the report."""
    by_rank = collections.defaultdict(list)   # rank -> [(true, merged)]
    for loc, me, kind, ev, i in events:
        t = true_time(ev)
        if t is not None:
            by_rank[me].append((t, ev.time))
    if not by_rank:
        say(False, "bounds", "no event carries true_time")
        say(False, "error", "no event carries true_time")
        return
    scale = 1e9 / resolution
    # the error: residuals of merged - true against a least-squares line
    t0 = min(v[0][0] for v in by_rank.values())
    xs, ys = [], []
    for lst in by_rank.values():
        for t, g in lst:
            x = (t - t0) * scale
            xs.append(x)
            ys.append(g * scale - x)
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    err = max(abs(y - (my + slope * (x - mx))) for x, y in zip(xs, ys))
    theirs = report.get("truth", {}).get("error_max_ns")
    if theirs is None:
        say(False, "error", "the report gives no error against true time (measured %.1f ns)" % err)
    else:
        tol = 1.0 + 0.005 * max(err, theirs) + scale   # one tick of the archive's clock
        say(abs(theirs - err) <= tol, "error", "measured %.1f ns over %d events, the report says %.1f ns"
            % (err, n, theirs))
    # true offsets: where the reference's merged clock stood at an event's
    # true time, minus where the event was put, says how far the clock's
    # offset is from the true one
    domains = report.get("domains", [])
    ref = [d for d in domains if d.get("lo_ns") == 0 and d.get("hi_ns") == 0 and d.get("offset_ns") == 0]
    if not domains or not ref or ref[0]["domain"] not in by_rank:
        say(False, "bounds", "no reference clock in the report, or no events of it")
        return
    ref_ev = sorted(by_rank[ref[0]["domain"]])
    rt = [t for t, _ in ref_ev]
    rg = [g for _, g in ref_ev]

    def ref_at(t):
        k = bisect.bisect_left(rt, t)
        k = min(max(k, 1), len(rt) - 1)
        t0_, t1_, g0, g1 = rt[k - 1], rt[k], rg[k - 1], rg[k]
        return g0 if t1_ == t0_ else g0 + (g1 - g0) * (t - t0_) / (t1_ - t0_)

    bad, notes, checked = [], [], 0
    for d in domains:
        r = d["domain"]
        if r not in by_rank or len(d.get("segments", [])) != 1:
            notes.append("clock %d not measured" % r)
            continue
        shift = statistics.median((g - ref_at(t)) * scale for t, g in by_rank[r])
        true_off = d["offset_ns"] - shift
        lo, hi = d["lo_ns"], d["hi_ns"]
        tol = 1.0 + scale   # rounding only: a relaxed (delta) solution buys no slack
        inside = lo - tol <= true_off <= hi + tol
        checked += 1
        if not inside or not d.get("true_inside_bounds", False):
            bad.append("clock %d true %.0f ns, bounds [%.0f, %.0f], report says %s"
                       % (r, true_off, lo, hi, "inside" if d.get("true_inside_bounds") else "outside"))
    say(not bad and checked > 0, "bounds", "%d clocks measured%s%s" % (
        checked, "; " + "; ".join(bad[:4]) if bad else "", "; " + ", ".join(notes) if notes else ""))


def check_monotonic(events):
    last, last_true, bad, bad_true = {}, {}, 0, 0
    for loc, me, kind, ev, i in events:
        if ev.time < last.get(loc, 0):
            bad += 1
        last[loc] = ev.time
        t = true_time(ev)
        if t is not None:
            if t < last_true.get(loc, 0):
                bad_true += 1
            last_true[loc] = t
    say(bad == 0 and bad_true == 0, "monotonic", "%d events, %d earlier than their predecessor, %d with a true "
        "time earlier than their predecessor's" % (len(events), bad, bad_true))


def check_report(report):
    keys = ["unmatched_sends", "unmatched_receives", "incomplete_collectives", "tachyons_after",
            "nonmonotonic_after", "collective_order_violations_after"]
    nonzero = {k: report.get(k) for k in keys if report.get(k) != 0}
    say(not nonzero, "report", "nonzero: %s" % nonzero if nonzero else "all of %s are 0" % ", ".join(keys))


def expected(prefix, np):
    """The program's announcements: message peers, and records per rank."""
    peers = collections.Counter()
    records = []
    for r in range(np):
        name = "%s.%d" % (prefix, r)
        mine = collections.Counter()
        if os.path.exists(name):
            with open(name) as f:
                for line in f:
                    words = line.split()
                    if len(words) == 2 and all(w.isdigit() for w in words):
                        peers[(int(words[0]), int(words[1]))] += 1
                    elif words:
                        mine[line.strip()] += 1
        records.append(mine)
    return peers, records


def check_records(path, records):
    """names: every announced name is a communicator's or window's name;
    window, cart: as many RmaWin / CartTopology definitions as one rank
    announced; put, get: as many RmaPut / RmaGet events as all ranks did."""
    with otf2.reader.open(path) as trace:
        d = trace.definitions
        names = {c.name for c in d.comms} | {c.name for c in d.inter_comms} | {w.name for w in d.rma_wins}
        have = {"window": len(list(d.rma_wins)), "cart": len(list(d.cart_topologies))}
        events = collections.Counter(type(ev).__name__ for _, ev in trace.events)
    have["put"], have["get"] = events["RmaPut"], events["RmaGet"]
    want_names = {k[5:] for mine in records for k in mine if k.startswith("name ")}
    want = {"window": max((m["window"] for m in records), default=0),
            "cart": max((m["cart"] for m in records), default=0),
            "put": sum(m["put"] for m in records), "get": sum(m["get"] for m in records)}
    lost = sorted(want_names - names)
    short = {k: (have[k], v) for k, v in want.items() if have[k] < v}
    detail = "%d names, %s announced" % (len(want_names), ", ".join("%s %d" % kv for kv in want.items() if kv[1]) or
                                          "nothing else")
    if lost:
        detail += "; names missing: %s" % ", ".join(lost)
    if short:
        detail += "; fewer than announced (found, announced): %s" % short
    say(not lost and not short, "records", detail)


RMA_OPS = ("RmaPut", "RmaGet", "RmaAtomic")


def rma_announced(records):
    """{rank: Counter of announced rma/lock lines}, and the windows they name."""
    mine, wins = {}, set()
    for rank, lines in enumerate(records or []):
        mine[rank] = collections.Counter()
        for line, n in lines.items():
            words = line.split()
            if words and words[0] in ("rma", "lock", "local"):   # the window's name may hold blanks
                mine[rank][" ".join(words)] += n
                wins.add(" ".join(words[1:-4] if words[0] == "rma" else words[1:-2] if words[0] == "lock"
                                  else words[1:]))
    return mine, wins


def check_rma(path, events, records):
    """rma: completion, lock balance and (with announcements) the exact operations."""
    with otf2.reader.open(path) as trace:
        comms = Comms(trace.definitions)
    announced, wins = rma_announced(records)
    problems, nops, nlocks = [], 0, 0
    pending = collections.defaultdict(collections.Counter)   # loc -> (win, id) issued, not completed
    held = collections.defaultdict(int)                      # (loc, win, remote) -> open locks
    issued = collections.defaultdict(set)                    # loc -> (win, id) ever issued
    local = collections.defaultdict(set)                     # loc -> (win, id) completed locally
    have = collections.defaultdict(collections.Counter)      # rank -> event lines on announced windows

    def world(win, remote, me):
        if remote == UNDEF:
            return "all"
        members = comms.members(win.comm.group) if win.comm is not None else None
        if members is None:
            return str(me) if remote == 0 else "?%d" % remote
        return str(members[remote]) if remote < len(members) else "?%d" % remote

    for loc, rank, kind, ev, _ in events:
        if kind in RMA_OPS:
            nops += 1
            pending[loc][(ev.win._ref, ev.matching_id)] += 1
            issued[loc].add((ev.win._ref, ev.matching_id))
            if ev.win.name in wins:
                if kind == "RmaPut":
                    what, sent, received = "put", ev.bytes, 0
                elif kind == "RmaGet":
                    what, sent, received = "get", 0, ev.bytes
                else:
                    what, sent, received = str(ev.type).split(".")[-1].lower(), ev.bytes_sent, ev.bytes_received
                have[rank]["rma %s %s %s %d %d" % (ev.win.name, what, world(ev.win, ev.remote, rank), sent,
                                                      received)] += 1
        elif kind == "RmaOpCompleteRemote":
            key = (ev.win._ref, ev.matching_id)
            if pending[loc][key] > 0:
                pending[loc][key] -= 1
            else:
                problems.append("rank %d: completion of %s #%d with no open operation" % (rank, ev.win.name,
                                                                                        ev.matching_id))
        elif kind == "RmaOpCompleteNonBlocking":
            key = (ev.win._ref, ev.matching_id)
            if key not in issued[loc] or key in local[loc]:
                problems.append("rank %d: local completion of %s #%d, %s" % (
                    rank, ev.win.name, ev.matching_id, "twice" if key in local[loc] else "never issued"))
            local[loc].add(key)
            if ev.win.name in wins:
                have[rank]["local %s" % ev.win.name] += 1
        elif kind == "RmaRequestLock":
            nlocks += 1
            held[(loc, ev.win._ref, ev.remote)] += 1
            if ev.win.name in wins:
                have[rank]["lock %s %s %s" % (ev.win.name, world(ev.win, ev.remote, rank),
                                              str(ev.lock_type).split(".")[-1].lower())] += 1
        elif kind == "RmaReleaseLock":
            key = (loc, ev.win._ref, ev.remote)
            if held[key] > 0:
                held[key] -= 1
            else:
                problems.append("rank %d: %s released a lock on %s it did not hold" % (rank, ev.win.name,
                                                                                     world(ev.win, ev.remote, rank)))
    open_ops = sum(sum(c.values()) for c in pending.values())
    if open_ops:
        problems.append("%d operations never completed" % open_ops)
    open_locks = sum(held.values())
    if open_locks:
        problems.append("%d locks never released" % open_locks)
    for rank, want in sorted(announced.items()):
        if want != have[rank]:
            lost = want - have[rank]
            extra = have[rank] - want
            problems.append("rank %d: announced, not found: %s; found, not announced: %s"
                            % (rank, sorted(lost.elements())[:4], sorted(extra.elements())[:4]))
    detail = "%d operations, %d lock requests, %d announced" % (
        nops, nlocks, sum(sum(c.values()) for c in announced.values()))
    if problems:
        detail += "; " + "; ".join(problems[:4])
    say(not problems, "rma", detail)


def check_life(path):
    from mapping_check import comm_life   # shares the rule with test-scorep-mapping's reader
    with otf2.reader.open(path) as trace:
        by_loc = collections.defaultdict(list)
        for loc, ev in trace.events:
            by_loc[loc._ref].append(ev)
        nranks = len([ref for ref in by_loc if ref >> 32 == 0])
        flag_bad, count_bad, place_bad, creates = comm_life(trace.definitions, by_loc, nranks)
    bad = flag_bad + count_bad + place_bad
    say(sum(creates.values()) > 0 and not bad, "life", "%d CommCreate on %d ranks%s"
        % (sum(creates.values()), nranks, ("; " + "; ".join(bad[:4])) if bad else ""))


def main(argv):
    if len(argv) not in (2, 4):
        print("usage: conformance_check.py MERGED_DIR [PEERS_PREFIX NP]", file=sys.stderr)
        return 2
    out = argv[1]
    repair_intercomm_definition()
    try:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        comms, events = read(os.path.join(out, "traces.otf2"))
        with otf2.reader.open(os.path.join(out, "traces.otf2")) as trace:
            resolution = trace.timer_resolution
    except Exception as e:   # one line naming the problem, for the TAP output
        print("conformance_check: %s: %s" % (out, e), file=sys.stderr)
        return 2
    peers, records = expected(argv[2], int(argv[3])) if len(argv) == 4 else (None, None)
    check_monotonic(events)
    check_messages(comms, events, peers, report)
    check_dataflow(comms, events)
    check_truth(events, report, resolution)
    check_report(report)
    check_rma(os.path.join(out, "traces.otf2"), events, records)
    check_life(os.path.join(out, "traces.otf2"))
    if records is not None:
        check_records(os.path.join(out, "traces.otf2"), records)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
