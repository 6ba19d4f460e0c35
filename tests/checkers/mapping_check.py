#!/usr/bin/env python3
"""mapping_check.py ARCHIVE/traces.otf2 docs/scorep-mapping.md — checks a
merged archive against what Score-P writes (docs/scorep-mapping.md), read
with OTF2's Python reader, not synctrace's code. Prints TAP-like lines
("ok - ..." / "not ok - ...") for tests/lib.sh's tap_from_checker:
  - every MPI region has the role the docs' "Region roles" table gives it
    (FUNCTION when not listed), paradigm MPI and source file "MPI";
  - the MPI paradigm is defined (class PROCESS) with Score-P's communicator
    and window name templates;
  - no communicator is named with the tracer's key ("comm" + 16 hex digits);
  - communicators have their parents (the program's splits and topologies
    MPI_COMM_WORLD, each duplicate the communicator it duplicates);
  - every Cartesian topology has its dimensions, and each member of its
    communicator has coordinates that are its rank in row-major order;
  - every location's first event enters MPI_Init or MPI_Init_thread;
  - communicator life events, as Score-P writes them: every communicator
    but the tracer's own is flagged CREATE_DESTROY_EVENTS; each flagged one
    has exactly one CommCreate per member rank (every rank for
    MPI_COMM_SELF) before that rank's first use of it, at most one
    CommDestroy after its last use, none on a non-member; each sits inside
    the call that made (MPI_Init for MPI_COMM_WORLD/SELF, a wait or test for
    MPI_Comm_idup) or ended it (MPI_Comm_free, MPI_Comm_disconnect,
    MPI_Finalize for MPI_COMM_WORLD/SELF), after that call's other events
    (a wait's or test's other completions aside), between a
    MpiCollectiveBegin and a MpiCollectiveEnd CREATE_HANDLE/DESTROY_HANDLE
    (root none, no bytes) on the communicator the call is collective over
    (MPI_COMM_WORLD in MPI_Init/MPI_Finalize, the parent, the new
    communicator for create_group/Intercomm_create/join, the freed one;
    none in a wait or test), right before its Leave;
    prints "comm_creates rank R N" per rank;
  - one-sided communication as tests/mpi/mpi_mapping.c does it on each rank
    (window "halo window" on MPI_COMM_WORLD; create, two fences, free as
    RMA collectives; a put to the next rank, an accumulate under a lock of
    the next rank, a get from the previous rank under MPI_Win_lock_all (one
    SHARED lock request and release on every process: remote
    OTF2_UNDEFINED_UINT32), no event for a put to MPI_PROC_NULL, odd ranks a put to their even partner under PSCW; every
    operation completed later, on the same window, by its matching id);
  - MPI's fence ordering holds in global time: an operation completed by a
    fence is issued before its target's fence of the same ordinal ends; and
    PSCW's: an origin's complete (RmaSync NOTIFY_OUT) before its target's
    wait ends (RmaSync NOTIFY_IN).
"""
import collections
import re
import sys

import otf2

ALL_RANKS = 0xFFFFFFFF   # OTF2_UNDEFINED_UINT32: MPI_Win_lock_all's "every process of the window"

from merged_check import fix_intercomm_fields   # python3-otf2 3.0 cannot read InterComm otherwise


def roles_from_docs(path):
    """role name -> set of MPI functions, from the docs' Region roles table"""
    table, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == "## Region roles"
                continue
            m = re.match(r"^\| ([A-Z0-9_]+) \| (MPI_.*) \|$", line.strip()) if inside else None
            if m:
                table[m.group(1)] = {x.strip() for x in m.group(2).split(",")}
    return table


def enum_name(v):
    """RegionRole.COLL_ONE2ALL -> COLL_ONE2ALL (the bindings' enums print so)"""
    return str(v).rsplit(".", 1)[-1]


def say(ok, what):
    print("%s - %s" % ("ok" if ok else "not ok", what))


CREATORS = {"MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
            "MPI_Comm_create_group", "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create", "MPI_Dist_graph_create",
            "MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Comm_accept",
            "MPI_Comm_connect", "MPI_Comm_spawn", "MPI_Comm_spawn_multiple", "MPI_Comm_join"}
ENDERS = {"MPI_Comm_free", "MPI_Comm_disconnect"}
LIFE = ("CommCreate", "CommDestroy")
# Constructors collective over the new communicator itself, not a parent:
# create_group over the new group, Intercomm_create over both local groups
# (the new intercommunicator's members), join between its two processes.
OVER_NEW = {"MPI_Comm_create_group", "MPI_Intercomm_create", "MPI_Comm_join"}


def handle_pair(evs, i, c, region, scopes):
    """The problem with the collective pair around the life event evs[i] of
    communicator c (OTF2: a MpiCollectiveBegin before it, a MpiCollectiveEnd
    CREATE_HANDLE / DESTROY_HANDLE, root none, no bytes, on the communicator
    the call is collective over, then the Leave), or None."""
    kind = type(evs[i]).__name__
    b = i - 1
    while b >= 0 and type(evs[b]).__name__ in LIFE:
        b -= 1
    e = i + 1
    while e < len(evs) and type(evs[e]).__name__ in LIFE:
        e += 1
    if b < 0 or type(evs[b]).__name__ != "MpiCollectiveBegin":
        return "no MpiCollectiveBegin before it"
    if e + 1 >= len(evs) or type(evs[e]).__name__ != "MpiCollectiveEnd" or type(evs[e + 1]).__name__ != "Leave":
        return "not followed by MpiCollectiveEnd, Leave"
    end = evs[e]
    want = "CREATE_HANDLE" if kind == "CommCreate" else "DESTROY_HANDLE"
    if enum_name(end.collective_op) != want or end.size_sent or end.size_received or end.root not in (None, 0xffffffff):
        return "its MpiCollectiveEnd is %s root %s sent %d received %d" % (
            enum_name(end.collective_op), end.root, end.size_sent, end.size_received)
    scope = end.communicator._ref if end.communicator is not None else None
    world, parent, member = scopes
    if region in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize"):
        fine = scope in world
    elif region in OVER_NEW or region in ENDERS:
        fine = scope == c
    elif parent.get(c) is not None:
        fine = scope == parent[c]
    else:   # an intercommunicator from spawn, accept or connect: over the local communicator
        fine = scope != c and scope is not None and member(scope)
    return None if fine else "its MpiCollectiveEnd is on <%s>, not the communicator %s is collective over" % (
        scope, region)


def comm_life(defs, events, nranks):
    """events: location ref -> its events in order. Returns (flag problems,
    count problems, placement problems (the collective pair around each
    included), {rank: number of CommCreate})."""
    flagged, members, names, predefined, inter = {}, {}, {}, set(), set()
    parent, selfs = {}, set()
    for c in defs.comms:
        names[c._ref] = c.name
        parent[c._ref] = c.parent._ref if getattr(c, "parent", None) is not None else None
        flagged[c._ref] = bool(int(getattr(c.flags, "value", c.flags)) & 1)
        if isinstance(c, otf2.definitions.InterComm):
            members[c._ref] = {m._ref for m in c.groupA.members} | {m._ref for m in c.groupB.members}
            inter.add(c._ref)
        elif c.group.group_type == otf2.GroupType.COMM_SELF:
            members[c._ref] = set(range(nranks))
            predefined.add(c._ref)
            selfs.add(c._ref)
        else:
            members[c._ref] = {m._ref for m in c.group.members}
            # MPI_COMM_WORLD, whatever MPI_Comm_set_name called it (the
            # tracer's own world duplicate is not flagged); a merge of
            # several jobs (spawn, connect) has a world per job
            if c.name == "MPI_COMM_WORLD" or (c.parent is None and members[c._ref] == set(range(nranks))
                                              and flagged[c._ref]):
                predefined.add(c._ref)
    flag_bad = ["%s <%d> %s" % (names[c], c, "flagged" if f else "not flagged") for c, f in flagged.items()
                if f == (names[c] == "synctrace sync")]
    # ranks in the archive: a group may name processes of another job merged apart
    present = {loc & 0xffffffff for loc in events}
    creates, destroys = collections.defaultdict(list), collections.defaultdict(list)   # (comm, rank) -> times
    first_use, last_use = {}, {}
    count_bad, place_bad, pair_bad = [], [], []
    ncreates = collections.Counter()
    for loc, evs in events.items():
        rank = loc & 0xffffffff
        stack = []
        for i, ev in enumerate(evs):
            kind = type(ev).__name__
            if kind == "Enter":
                stack.append(ev.region.name)
            elif kind == "Leave":
                stack = stack[:-1]
            elif kind in LIFE:
                c = ev.communicator._ref
                (creates if kind == "CommCreate" else destroys)[(c, rank)].append(ev.time)
                ncreates[rank] += kind == "CommCreate"
                if not flagged[c]:
                    count_bad.append("rank %d: %s of %s <%d>, which is not flagged" % (rank, kind, names[c], c))
                if rank not in members[c]:
                    count_bad.append("rank %d: %s of %s <%d>, not a member" % (rank, kind, names[c], c))
                region = stack[-1] if stack else None
                init = region in ("MPI_Init", "MPI_Init_thread")
                if kind == "CommCreate":
                    # a spawned job's intercommunicator to its parents comes with MPI_Init
                    fine = init if c in predefined else (
                        region in CREATORS or (region or "").startswith(("MPI_Wait", "MPI_Test"))
                        or (init and c in inter))
                else:
                    # freed with requests pending, a communicator ends when
                    # the last is done: in the Wait/Test that completed it,
                    # the MPI_Request_free of a persistent one, or
                    # MPI_Finalize if never (MPI 4.0 6.4.3, MPI_COMM_FREE)
                    fine = region == "MPI_Finalize" if c in predefined else (
                        region in ENDERS or region in ("MPI_Request_free", "MPI_Finalize")
                        or (region or "").startswith(("MPI_Wait", "MPI_Test")))
                rest = [type(e).__name__ for e in evs[i + 1:i + 8]]
                rest = [k for k in rest if k not in LIFE][:2]
                # a wait or test may complete other requests after the idup's
                # (or after the last pending request of a freed communicator)
                alone = region not in ENDERS and c not in predefined and kind == "CommDestroy"
                alone = alone or (region or "").startswith(("MPI_Wait", "MPI_Test"))
                last = rest == ["MpiCollectiveEnd", "Leave"] or alone
                if not fine or not last:
                    place_bad.append("rank %d: %s of %s <%d> in %s, followed by %s" % (rank, kind, names[c], c,
                                                                                      region, rest))
                # an MPI_Comm_idup's communicator, created in the Wait/Test
                # that completed it, and a communicator that outlived its
                # free have no pair: nothing collective happens there
                elif not alone:
                    scopes = (predefined - selfs, parent, lambda s, r=rank: r in members.get(s, ()))
                    bad = handle_pair(evs, i, c, region, scopes)
                    if bad:
                        pair_bad.append("rank %d: %s of %s <%d> in %s: %s" % (rank, kind, names[c], c, region, bad))
            else:
                comm = getattr(ev, "communicator", None)
                if comm is not None:
                    key = (comm._ref, rank)
                    first_use.setdefault(key, ev.time)
                    first_use[key] = min(first_use[key], ev.time)
                    last_use[key] = max(last_use.get(key, ev.time), ev.time)
    for c, f in flagged.items():
        if not f:
            continue
        for rank in sorted(members[c] & present):
            made, ended = creates.get((c, rank), []), destroys.get((c, rank), [])
            what = "rank %d, %s <%d>" % (rank, names[c] or "unnamed", c)
            if len(made) != 1:
                count_bad.append("%s: %d CommCreate" % (what, len(made)))
            elif (c, rank) in first_use and made[0] > first_use[(c, rank)]:
                count_bad.append("%s: CommCreate after its first use" % what)
            if len(ended) > 1:
                count_bad.append("%s: %d CommDestroy" % (what, len(ended)))
            elif ended and (((c, rank) in last_use and ended[0] < last_use[(c, rank)]) or (made and ended[0] < made[0])):
                count_bad.append("%s: CommDestroy before its last use or its CommCreate" % what)
    return flag_bad, count_bad, place_bad + pair_bad, ncreates


def main(path, docs):
    table = roles_from_docs(docs)
    expected = {fn: role for role, fns in table.items() for fn in fns}
    say(len(expected) > 50, "the docs' region role table lists %d MPI functions" % len(expected))
    fix_intercomm_fields()
    with otf2.reader.open(path) as trace:
        defs = trace.definitions
        bad = []
        nmpi = 0
        for r in defs.regions:
            if not r.name.startswith("MPI_"):
                continue
            nmpi += 1
            want = expected.get(r.name, "FUNCTION")
            if enum_name(r.region_role) != want or r.paradigm != otf2.Paradigm.MPI or r.source_file != "MPI":
                bad.append("%s %s/%s/%s" % (r.name, enum_name(r.region_role), r.paradigm, r.source_file))
        say(nmpi > 0 and not bad, "%d MPI regions with Score-P's role, paradigm MPI, file \"MPI\"%s"
            % (nmpi, (": wrong " + ", ".join(bad[:6])) if bad else ""))
        paradigms = [p for p in defs.paradigms if p.paradigm == otf2.Paradigm.MPI]
        say(len(paradigms) == 1 and paradigms[0].name == "MPI"
            and paradigms[0].paradigm_class == otf2.ParadigmClass.PROCESS, "the MPI paradigm is defined")
        props = {enum_name(p.property): p.value for p in defs.paradigm_properties if p.paradigm == otf2.Paradigm.MPI}
        say(props.get("COMM_NAME_TEMPLATE") == "Comm ${id}" and props.get("RMA_WIN_NAME_TEMPLATE") == "Win ${id}",
            "the MPI paradigm's name templates: %s" % sorted(props.items()))
        # parents: the split halves and the topologies from MPI_COMM_WORLD, each
        # duplicate from its half (same members)
        from_world = [c for c in defs.comms if c.parent is not None and c.parent.name == "MPI_COMM_WORLD"]
        dups = [c for c in defs.comms if c.parent is not None and c.parent.name != "MPI_COMM_WORLD"
                and hasattr(c, "group") and hasattr(c.parent, "group")
                and [m._ref for m in c.group.members] == [m._ref for m in c.parent.group.members]]
        say(len(from_world) >= 4 and len(dups) >= 2, "communicator parents: %d from MPI_COMM_WORLD, %d duplicates"
            % (len(from_world), len(dups)))
        keys = [c.name for c in defs.comms if re.match(r"^comm [0-9a-f]{16}$", c.name)]
        say(not keys, "no communicator named with the tracer's key (%d)" % len(keys))
        tops = list(defs.cart_topologies)
        coords = list(defs.cart_coordinates)
        problems = []
        for t in tops:
            sizes = [d.size for d in t.dimensions]
            name = "MPI_Cartesian_" + "x".join(str(s) for s in sizes)
            if t.name != name:
                problems.append("%s named %s" % (name, t.name))
            members = len(t.communicator.group.members)
            mine = [c for c in coords if c.topology == t]
            if sorted(c.rank for c in mine) != list(range(members)):
                problems.append("%s: coordinates for ranks %s of %d" % (t.name, sorted(c.rank for c in mine), members))
            for c in mine:
                index = 0
                for s, x in zip(sizes, c.coordinates):
                    index = index * s + x
                if index != c.rank:
                    problems.append("%s: rank %d at %s" % (t.name, c.rank, c.coordinates))
        print("cartesian %s" % "; ".join("%s periodic %s" % (t.name, [enum_name(d.cart_periodicity) for d in t.dimensions])
                                         for t in tops))
        say(tops and not problems, "%d Cartesian topologies, every member's coordinates%s"
            % (len(tops), (": " + "; ".join(problems[:4])) if problems else ""))
        wins = list(defs.rma_wins)
        say(len(wins) == 1 and wins[0].name == "halo window" and wins[0].comm.name == "MPI_COMM_WORLD",
            "the RMA window is defined, named, on its communicator: %s"
            % ["%s on %s" % (w.name, w.comm.name if w.comm else None) for w in wins])
        nranks = len([c for c in defs.comms if c.name == "MPI_COMM_WORLD"][0].group.members)
        first = {}
        rma = collections.defaultdict(list)
        by_loc = collections.defaultdict(list)
        for loc, ev in trace.events:
            if loc not in first:
                first[loc] = ev
            by_loc[loc._ref].append(ev)
            if type(ev).__name__.startswith("Rma"):
                rma[loc._ref].append(ev)
        problems = []
        for rank in range(nranks):
            evs = rma.get(rank, [])
            kinds = collections.Counter(type(e).__name__ for e in evs)
            ends = collections.Counter(enum_name(e.collective_op) for e in evs if type(e).__name__ == "RmaCollectiveEnd")
            want = {"RmaWinCreate": 1, "RmaWinDestroy": 1, "RmaCollectiveBegin": 4, "RmaCollectiveEnd": 4,
                    "RmaPut": 1 + rank % 2, "RmaAtomic": 1, "RmaGet": 1, "RmaRequestLock": 2, "RmaReleaseLock": 2,
                    "RmaOpCompleteRemote": 3 + rank % 2, "RmaSync": 1}
            for k, v in want.items():
                if kinds.get(k, 0) != v:
                    problems.append("rank %d: %d %s (want %d)" % (rank, kinds.get(k, 0), k, v))
            if ends != collections.Counter({"CREATE_HANDLE": 1, "BARRIER": 2, "DESTROY_HANDLE": 1}):
                problems.append("rank %d: RMA collectives %s" % (rank, dict(ends)))
            issued, done = {}, set()
            for e in evs:
                name = type(e).__name__
                if name in ("RmaPut", "RmaGet", "RmaAtomic"):
                    issued[e.matching_id] = e
                elif name == "RmaOpCompleteRemote":
                    if e.matching_id not in issued or issued[e.matching_id].win != e.win:
                        problems.append("rank %d: completion of an operation not issued before" % rank)
                    done.add(e.matching_id)
            if set(issued) != done:
                problems.append("rank %d: operations never completed" % rank)
            nxt = (rank + 1) % nranks
            puts = [e.remote for e in evs if type(e).__name__ == "RmaPut"]
            locks = [(type(e).__name__, e.remote) for e in evs if "Lock" in type(e).__name__]
            if puts[:1] != [nxt] or (rank % 2 and puts[1:] != [rank ^ 1]):
                problems.append("rank %d: puts to %s" % (rank, puts))
            if locks != [("RmaRequestLock", nxt), ("RmaReleaseLock", nxt),
                         ("RmaRequestLock", ALL_RANKS), ("RmaReleaseLock", ALL_RANKS)]:
                problems.append("rank %d: locks %s" % (rank, locks))
            types = [enum_name(e.lock_type) for e in evs if type(e).__name__ == "RmaRequestLock"]
            gets = [e.remote for e in evs if type(e).__name__ == "RmaGet"]
            if types != ["SHARED", "SHARED"] or gets != [(rank + nranks - 1) % nranks]:
                problems.append("rank %d: lock types %s, gets from %s" % (rank, types, gets))
            syncs = [(enum_name(e.sync_type), e.remote) for e in evs if type(e).__name__ == "RmaSync"]
            if syncs != [("NOTIFY_OUT" if rank % 2 else "NOTIFY_IN", rank ^ 1)]:
                problems.append("rank %d: PSCW notifications %s" % (rank, syncs))
        say(nranks > 1 and not problems, "one-sided events on %d ranks%s" % (nranks, (": " + "; ".join(problems[:4])) if problems else ""))
        # MPI's fence ordering: an operation completed by a fence precedes the
        # end of its target's fence of the same ordinal on the window
        ends = {}      # (rank, window) -> [time of each fence's end]
        closed = []    # (origin rank, window, fence ordinal, target, time of the operation)
        for rank, evs in rma.items():
            if rank >> 32:
                continue
            ops, inside, open_ = {}, [], False
            for e in evs:
                name = type(e).__name__
                if name in ("RmaPut", "RmaGet", "RmaAtomic"):
                    ops[e.matching_id] = e
                elif name == "RmaCollectiveBegin":
                    open_, inside = True, []
                elif name == "RmaOpCompleteRemote" and open_:
                    inside.append(e.matching_id)
                elif name == "RmaCollectiveEnd":
                    if enum_name(e.collective_op) == "BARRIER":
                        lst = ends.setdefault((rank, e.win._ref), [])
                        for mid in inside:
                            op = ops[mid]
                            closed.append((rank, e.win._ref, len(lst), op.remote, op.time, e.win.comm))
                        lst.append(e.time)
                    open_ = False
        late = 0
        for rank, win, ordinal, target, t, comm in closed:
            world = comm.group.members[target]._ref
            fence_end = ends.get((world, win), [])
            if ordinal >= len(fence_end) or fence_end[ordinal] < t:
                late += 1
        say(closed and not late, "fence orderings: %d operations before their target's closing fence, %d after it"
            % (len(closed) - late, late))
        # PSCW: an origin's complete precedes the end of its target's wait
        outs = [(r, e) for r, evs in rma.items() for e in evs
                if type(e).__name__ == "RmaSync" and enum_name(e.sync_type) == "NOTIFY_OUT"]
        late = 0
        for r, e in outs:
            target = e.win.comm.group.members[e.remote]._ref
            ins = [x for x in rma.get(target, []) if type(x).__name__ == "RmaSync"
                   and enum_name(x.sync_type) == "NOTIFY_IN" and e.win.comm.group.members[x.remote]._ref == r]
            late += not ins or ins[0].time < e.time
        say(outs and not late, "PSCW orderings: %d completes before their target's wait ended, %d after"
            % (len(outs) - late, late))
        wrong = [loc.name for loc, ev in first.items()
                 if not (type(ev).__name__ == "Enter" and ev.region.name in ("MPI_Init", "MPI_Init_thread"))]
        say(first and not wrong, "every location begins with MPI_Init's Enter%s" % (": not " + ", ".join(wrong) if wrong else ""))
        flag_bad, count_bad, place_bad, ncreates = comm_life(defs, by_loc, nranks)
        for rank in range(nranks):
            print("comm_creates rank %d %d" % (rank, ncreates.get(rank, 0)))
        nflagged = sum(1 for c in defs.comms if int(getattr(c.flags, "value", c.flags)) & 1)
        say(nflagged and not flag_bad, "%d communicators flagged CREATE_DESTROY_EVENTS, the tracer's own not%s"
            % (nflagged, (": " + "; ".join(flag_bad[:4])) if flag_bad else ""))
        say(sum(ncreates.values()) and not count_bad,
            "%d CommCreate: one per member rank before its first use, at most one CommDestroy after its last%s"
            % (sum(ncreates.values()), (": " + "; ".join(count_bad[:4])) if count_bad else ""))
        say(sum(ncreates.values()) and not place_bad, "CommCreate/CommDestroy inside the creating/ending call, "
            "in its CREATE_HANDLE/DESTROY_HANDLE pair on the communicator the call is collective over, "
            "right before its Leave%s" % ((": " + "; ".join(place_bad[:4])) if place_bad else ""))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mapping_check.py ARCHIVE/traces.otf2 docs/scorep-mapping.md")
    main(sys.argv[1], sys.argv[2])
