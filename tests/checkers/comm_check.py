#!/usr/bin/env python3
"""comm_check.py — checks a `synctrace dump` of tests/mpi_comms against what
the program itself printed (its COMM lines).

    comm_check.py CHECK PROGRAM_STDOUT DUMP_OUTPUT

CHECK is one of
  peers     every message of the program's rings is in the trace once, with
            SEND/ISEND peer= the receiver's world rank and lpeer= its comm
            rank, RECV/IRECV peer= the sender's world rank; and every send in
            the trace pairs with a receive on its peer (same comm, same tag)
            naming the sender, and vice versa
  keys      all members of a communicator use one key, and list the same
            members (the program's, in comm rank order) in their header;
            for an intercommunicator each side lists the other side
  distinct  distinct communicators have distinct keys (dup after free too)
  members   a rank defines exactly the communicators it is a member of: no
            definition of a key on a non-member, none left over
  life      CommCreate/CommDestroy: each member of each of the program's
            communicators has exactly one COMM_CREATE of its key, inside the
            call that made it (MPI_Wait for MPI_Comm_idup) right before that
            call's LEAVE and before its first message on it, and one
            COMM_DESTROY inside MPI_Comm_free after its last, each between
            a COLL_BEGIN and a COLL_END create_handle / destroy_handle
            (none around an idup's, in MPI_Wait); the key is
            flagged `events`; MPI_COMM_WORLD and MPI_COMM_SELF are created in
            MPI_Init and destroyed in MPI_Finalize on every rank; the tracer's
            own communicator has neither; a rank has no other such event (a
            call that returned MPI_COMM_NULL records none)
Prints '# ...' diagnostics; exit status 0 when the check passes."""
import re
import sys
from collections import defaultdict

HEADER_COMM = re.compile(r"^# rank (\d+) comm (.*?) members=?(.*)$")
HEADER_RANK = re.compile(r"^# rank (\d+) world_size ")
P2P = re.compile(r"^(\d+) (\d+) (SEND|ISEND|RECV|IRECV) time=\d+(?: true=\d+)? "
                 r"peer=(-?\d+) lpeer=(\d+) comm=(.*?) tag=(\d+) bytes=(\d+)")
FIXED = {"MPI_COMM_WORLD", "MPI_COMM_SELF", "synctrace sync"}
KEY = re.compile(r"^comm [0-9a-f]{16}$")


def parse_program(path):
    comms = []
    for line in open(path):
        if line.startswith("COMM "):
            d = dict(kv.split("=", 1) for kv in line.split()[1:])
            for k in ("tag", "inter", "world", "rank", "size", "next", "prev"):
                d[k] = int(d[k])
            d["members"] = [int(x) for x in d["members"].split(",")]
            comms.append(d)
    return comms


EVENT = re.compile(r"^(\d+) (\d+) ([A-Z_]+) time=\d+(?: true=\d+)?(.*)$")
INFO = re.compile(r"^# rank (\d+) comm_info (.*?) name=")
CREATORS = {"MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
            "MPI_Comm_create_group", "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create",
            "MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create", "MPI_Intercomm_merge"}
# a life event inside its collective pair, right before the call's Leave
CREATED = "COLL_BEGIN COLL_END:create_handle LEAVE"
DESTROYED = "COLL_BEGIN COLL_END:destroy_handle LEAVE"


def parse_life(path):
    """per rank: its events as (kind, region around it, comm, next kind but
    COMM_*), and the communicators flagged `events`"""
    events, flagged, stacks = defaultdict(list), defaultdict(set), defaultdict(list)
    for line in open(path):
        m = INFO.match(line)
        if m:
            if line.rstrip().split(" name=", 1)[1].split().count("events"):
                flagged[int(m.group(1))].add(m.group(2))
            continue
        m = EVENT.match(line)
        if not m:
            continue
        r, kind, rest = int(m.group(1)), m.group(3), m.group(4)
        st = stacks[r]
        region = re.search(r" region=(.*)$", rest)
        if kind == "ENTER":
            st.append(region.group(1))
        elif kind == "LEAVE" and st:
            st.pop()
        comm = re.search(r" comm=(.*?)(?: [a-z_]+=|$)", rest)
        op = re.search(r" op=(\w+)", rest)
        kind_op = kind + ":" + op.group(1) if kind == "COLL_END" and op else kind
        events[r].append([kind, st[-1] if st else None, comm.group(1) if comm else None, None, kind_op])
    for evs in events.values():
        for i, e in enumerate(evs):
            # what follows a life event, COMM_* aside: its collective pair's
            # end then the Leave ("COLL_END:create_handle LEAVE"), or the
            # Leave alone where there is no pair (an idup's in MPI_Wait);
            # prefixed by what precedes it when that is the pair's begin
            nxt = [x[4] for x in evs[i + 1:i + 8] if not x[0].startswith("COMM_")][:2]
            before = [x[0] for x in evs[max(0, i - 8):i] if not x[0].startswith("COMM_")][-1:]
            e[3] = " ".join(before + nxt) if before == ["COLL_BEGIN"] else " ".join(nxt[:1])
    return events, flagged


def parse_dump(path):
    ranks, defs, msgs = set(), defaultdict(list), []
    for line in open(path):
        m = HEADER_RANK.match(line)
        if m:
            ranks.add(int(m.group(1)))
            continue
        m = HEADER_COMM.match(line)
        if m:
            members = [int(x) for x in m.group(3).split(",")] if m.group(3) else []
            defs[int(m.group(1))].append((m.group(2), members))
            continue
        m = P2P.match(line)
        if m:
            r, _, kind, peer, lpeer, comm, tag, _ = m.groups()
            msgs.append(dict(rank=int(r), send=kind in ("SEND", "ISEND"), kind=kind, peer=int(peer),
                             lpeer=int(lpeer), comm=comm, tag=int(tag)))
    return ranks, defs, msgs


def main():
    check, prog_out, dump_out = sys.argv[1:4]
    comms = parse_program(prog_out)
    ranks, defs, msgs = parse_dump(dump_out)
    tags = sorted({c["tag"] for c in comms})
    problems = []
    say = problems.append
    if not comms:
        say("the program printed no COMM lines")
    if ranks != {0, 1, 2, 3}:
        say("dump has ranks %s, expected 0-3" % sorted(ranks))
    ours = [m for m in msgs if m["tag"] in tags]

    # The key each rank's events use for each communicator (by tag).
    used = defaultdict(set)              # (tag, rank) -> {comm names}
    for m in ours:
        used[(m["tag"], m["rank"])].add(m["comm"])

    def key_of(tag):
        names = set()
        for c in comms:
            if c["tag"] == tag:
                names |= used.get((tag, c["world"]), set())
        return names

    if check == "peers":
        for c in comms:
            w, t = c["world"], c["tag"]
            sends = [m for m in ours if m["rank"] == w and m["tag"] == t and m["send"]]
            recvs = [m for m in ours if m["rank"] == w and m["tag"] == t and not m["send"]]
            lnext = c["rank"] if c["inter"] else (c["rank"] + 1) % c["size"]
            if len(sends) != 1:
                say("%s: rank %d has %d sends with tag %d, expected 1" % (c["label"], w, len(sends), t))
            elif sends[0]["peer"] != c["next"] or sends[0]["lpeer"] != lnext:
                say("%s: rank %d %s peer=%d lpeer=%d, expected peer=%d lpeer=%d" % (
                    c["label"], w, sends[0]["kind"], sends[0]["peer"], sends[0]["lpeer"], c["next"], lnext))
            if len(recvs) != 1:
                say("%s: rank %d has %d receives with tag %d, expected 1" % (c["label"], w, len(recvs), t))
            elif recvs[0]["peer"] != c["prev"]:
                say("%s: rank %d %s peer=%d, expected the sender, world rank %d" % (
                    c["label"], w, recvs[0]["kind"], recvs[0]["peer"], c["prev"]))
        # Pairing inside the trace alone.
        for m in ours:
            want = [o for o in ours if o["rank"] == m["peer"] and o["send"] != m["send"]
                    and o["tag"] == m["tag"] and o["comm"] == m["comm"] and o["peer"] == m["rank"]]
            if len(want) != 1:
                say("%s on rank %d (tag %d, comm %s, peer %d) has %d matching %s on rank %d" % (
                    m["kind"], m["rank"], m["tag"], m["comm"], m["peer"], len(want),
                    "receives" if m["send"] else "sends", m["peer"]))
    elif check == "keys":
        for t in tags:
            members = [c for c in comms if c["tag"] == t]
            names = key_of(t)
            label = members[0]["label"]
            if len(names) != 1:
                say("tag %d (%s): members use %d different keys: %s" % (t, label, len(names), sorted(names)))
                continue
            name = names.pop()
            if not KEY.match(name):
                say("tag %d (%s): key %r is not 'comm <16 hex digits>'" % (t, label, name))
            for c in members:
                have = [mem for n, mem in defs[c["world"]] if n == name]
                if len(have) != 1:
                    say("%s: rank %d defines %s %d times" % (c["label"], c["world"], name, len(have)))
                elif have[0] != c["members"]:
                    say("%s: rank %d lists members %s for %s, the program has %s" % (
                        c["label"], c["world"], have[0], name, c["members"]))
            if members[0]["inter"]:
                # Each side's remote group is exactly the other side.
                sides = defaultdict(set)
                for c in members:
                    sides[tuple(c["members"])].add(c["world"])
                if len(sides) != 2:
                    say("%s: %d sides, expected 2" % (label, len(sides)))
                for remote, locals_ in sides.items():
                    others = set().union(*(s for r, s in sides.items() if r != remote))
                    if set(remote) != others or set(remote) & locals_:
                        say("%s: side %s lists remote group %s, the other side is %s" % (
                            label, sorted(locals_), list(remote), sorted(others)))
            else:
                lists = {tuple(mem) for c in members for n, mem in defs[c["world"]] if n == name}
                if len(lists) > 1:
                    say("%s: members disagree on the member list of %s: %s" % (label, name, sorted(lists)))
    elif check == "distinct":
        seen = {}
        for t in tags:
            for name in key_of(t):
                label = [c["label"] for c in comms if c["tag"] == t][0]
                if name in FIXED:
                    say("%s uses the fixed name %s" % (label, name))
                if name in seen and seen[name] != label:
                    say("%s and %s share the key %s" % (seen[name], label, name))
                seen[name] = label
        if len(seen) != len(tags):
            say("%d keys for %d communicators" % (len(seen), len(tags)))
    elif check == "members":
        for r in sorted(ranks):
            mine = {t for t in tags if any(c["tag"] == t and c["world"] == r for c in comms)}
            expected = set()
            for t in mine:
                expected |= key_of(t)
            defined = [n for n, _ in defs[r] if n not in FIXED]
            for n in defined:
                if n not in expected:
                    owners = [c["label"] for t in tags if n in key_of(t) for c in comms if c["tag"] == t][:1]
                    say("rank %d defines %s (%s) but is not a member" % (r, n, owners[0] if owners else "unknown"))
            if len(defined) != len(set(defined)):
                say("rank %d defines a key twice: %s" % (r, sorted(defined)))
            missing = expected - set(defined)
            if missing:
                say("rank %d lacks definitions of %s" % (r, sorted(missing)))
            if sorted(n for n, _ in defs[r] if n in FIXED) != sorted(FIXED):
                say("rank %d: fixed communicators %s" % (r, sorted(n for n, _ in defs[r] if n in FIXED)))
    elif check == "life":
        events, flagged = parse_life(dump_out)
        for t in tags:
            keys = key_of(t)
            if len(keys) != 1:
                say("tag %d: %d keys" % (t, len(keys)))
                continue
            key = keys.pop()
            for c in [c for c in comms if c["tag"] == t]:
                w, evs = c["world"], events[c["world"]]
                idx = {k: [i for i, e in enumerate(evs) if e[0] == k and e[2] == key] for k in ("COMM_CREATE", "COMM_DESTROY")}
                # the life events' own collective pairs are not uses
                uses = [i for i, e in enumerate(evs) if not e[0].startswith(("COMM_", "ENTER", "LEAVE")) and e[2] == key
                        and e[4] not in ("COLL_END:create_handle", "COLL_END:destroy_handle")]
                made, ended = idx["COMM_CREATE"], idx["COMM_DESTROY"]
                if key not in flagged[w]:
                    say("%s: rank %d's definition of %s is not flagged events" % (c["label"], w, key))
                if len(made) != 1 or len(ended) != 1:
                    say("%s: rank %d has %d COMM_CREATE, %d COMM_DESTROY of %s" % (c["label"], w, len(made), len(ended), key))
                    continue
                e = evs[made[0]]
                idup = c["label"].startswith("idup")
                where_ok = e[1] == "MPI_Wait" if idup else e[1] in CREATORS
                if not where_ok or e[3] != ("LEAVE" if idup else CREATED) or (uses and made[0] > uses[0]):
                    say("%s: rank %d's COMM_CREATE in %s, before %s, %s its first use" % (
                        c["label"], w, e[1], e[3], "after" if uses and made[0] > uses[0] else "before"))
                e = evs[ended[0]]
                if e[1] != "MPI_Comm_free" or e[3] != DESTROYED or (uses and ended[0] < uses[-1]):
                    say("%s: rank %d's COMM_DESTROY in %s, before %s" % (c["label"], w, e[1], e[3]))
        for r in sorted(ranks):
            evs = events[r]
            life = [e for e in evs if e[0].startswith("COMM_")]
            for name, where in (("MPI_COMM_WORLD", ("MPI_Init", "MPI_Finalize")), ("MPI_COMM_SELF", ("MPI_Init", "MPI_Finalize"))):
                got = [(e[0], e[1], e[3]) for e in life if e[2] == name]
                if got != [("COMM_CREATE", where[0], CREATED), ("COMM_DESTROY", where[1], DESTROYED)]:
                    say("rank %d: %s has %s" % (r, name, got))
                if name not in flagged[r]:
                    say("rank %d: %s not flagged events" % (r, name))
            if any(e[2] == "synctrace sync" for e in life) or "synctrace sync" in flagged[r]:
                say("rank %d: the tracer's own communicator has life events or the flag" % r)
            mine = len([c for c in comms if c["world"] == r]) + 2
            creates = len([e for e in life if e[0] == "COMM_CREATE"])
            if creates != mine:
                say("rank %d: %d COMM_CREATE, expected %d (its communicators, WORLD, SELF)" % (r, creates, mine))
            print("# rank %d: %d COMM_CREATE, %d COMM_DESTROY" % (r, creates, len(life) - creates))
    else:
        say("unknown check %r" % check)
    for p in problems[:20]:
        print("# " + p)
    if len(problems) > 20:
        print("# ... and %d more" % (len(problems) - 20))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
