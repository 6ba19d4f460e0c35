#!/usr/bin/env python3
"""trace_check.py — read `synctrace dump` output and check a trace.

Library part (reusable by any test):
    t = load_dump(text)                 parse into a Trace
    t.events[rank]                      the rank's events, in order (Event objects)
    annotate_regions(t) -> errors       ENTER/LEAVE nesting; sets ev.stack, ev.enter_ev, ev.leave_ev
    check_monotonic(t) -> errors        timestamps non-decreasing per rank
    check_stamps(t) -> errors           events carry their call's enter/leave time
    app_messages(t)                     SEND/ISEND/RECV/IRECV of the program (no sync traffic)
    match_messages(t) -> (pairs, errs)  FIFO matching per (comm, sender, receiver, tag),
                                        receives in posting order
    check_requests(t, exempt) -> errs   ISEND/IRECV_REQUEST/NBC_REQUEST completed exactly once
    check_sync_isolated(t) -> errors    the tracer's own messages stay in their region

Command line (used by tests/test-p2p.sh and tests/test-collectives.sh):
    trace_check.py p2p  DUMP_FILE NP     checks a trace of tests/mpi/mpi_p2p.c
    trace_check.py coll DUMP_FILE NP     checks a trace of tests/mpi/mpi_coll.c
The expectations (p2p_expectations, coll_expectations) mirror the order,
tags and sizes of those programs: change them together.
prints one line per check, "ok - WHAT" or "not ok - WHAT", details as
"# ..." lines; the shell scripts turn them into TAP. Exit status 0 unless
the checker itself failed (bad input): failed checks are reported, not fatal.
"""

import collections
import re
import sys

SYNC_COMM = "synctrace sync"
SYNC_REGION = "synctrace: clock synchronisation"
SYNC_TAGS = (7117, 7118)   # rawformat.h: RF_SYNC_TAG, RF_SYNC_TAG_BACKGROUND
WORLD = "MPI_COMM_WORLD"

INT_FIELDS = {"time", "true", "peer", "lpeer", "tag", "bytes", "req", "root", "sent", "recv", "stop"}
MSG_KINDS = {"SEND", "ISEND", "RECV", "IRECV"}
SEND_KINDS = {"SEND", "ISEND"}
RECV_KINDS = {"RECV", "IRECV"}


class Event:
    __slots__ = ("rank", "idx", "kind", "f", "line", "stack", "enter_ev", "leave_ev")

    def __init__(self, rank, idx, kind, fields, line):
        self.rank, self.idx, self.kind, self.f, self.line = rank, idx, kind, fields, line
        self.stack = ()          # enclosing region names, outermost first
        self.enter_ev = None     # ENTER of the innermost enclosing region
        self.leave_ev = None     # its LEAVE

    @property
    def time(self):
        return self.f["time"]

    @property
    def region(self):
        """Innermost enclosing region (for ENTER/LEAVE: the region itself)."""
        if self.kind in ("ENTER", "LEAVE"):
            return self.f["region"]
        return self.stack[-1] if self.stack else None

    def __repr__(self):
        return self.line


class Trace:
    def __init__(self):
        self.events = collections.defaultdict(list)   # rank -> [Event]
        self.comms = collections.defaultdict(dict)    # rank -> {name: [world ranks]}
        self.header = {}                              # rank -> header line

    @property
    def ranks(self):
        return sorted(set(self.events) | set(self.header))

    def all_events(self):
        for r in self.ranks:
            yield from self.events[r]


_FIELD = re.compile(r"(\w+)=(.*?)(?= \w+=|$)")
_COMM_HDR = re.compile(r"^# rank (\d+) comm (.*) members=?(.*)$")


def parse_fields(rest):
    fields = {}
    for m in _FIELD.finditer(rest):
        k, v = m.group(1), m.group(2)
        fields[k] = int(v) if k in INT_FIELDS else v
    return fields


def load_dump(text):
    t = Trace()
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("#"):
            m = _COMM_HDR.match(line)
            if m:
                members = [int(x) for x in m.group(3).split(",") if x != ""]
                t.comms[int(m.group(1))][m.group(2)] = members
            elif line.startswith("# rank ") and " world_size " in line:
                t.header[int(line.split()[2])] = line
            continue
        parts = line.split(" ", 3)
        if len(parts) < 4:
            raise ValueError("unparsable dump line: %r" % line)
        rank, idx, kind, rest = int(parts[0]), int(parts[1]), parts[2], parts[3]
        ev = Event(rank, idx, kind, parse_fields(rest), line)
        if idx != len(t.events[rank]):
            raise ValueError("event index out of sequence: %r" % line)
        t.events[rank].append(ev)
    return t


# ---------------------------------------------------------------- generic checks

def annotate_regions(t):
    """Proper ENTER/LEAVE nesting per rank; annotate every event with its stack."""
    errors = []
    for r in t.ranks:
        stack = []    # ENTER events
        for ev in t.events[r]:
            if ev.kind == "ENTER":
                stack.append(ev)
                ev.stack = tuple(e.f["region"] for e in stack)
            elif ev.kind == "LEAVE":
                if not stack:
                    errors.append("rank %d: LEAVE without ENTER: %s" % (r, ev.line))
                    continue
                top = stack.pop()
                if top.f["region"] != ev.f["region"]:
                    errors.append("rank %d: LEAVE %s closes ENTER %s (event %d)"
                                  % (r, ev.f["region"], top.f["region"], top.idx))
                top.leave_ev = ev
                ev.enter_ev = top
                ev.stack = tuple(e.f["region"] for e in stack) + (ev.f["region"],)
            else:
                ev.stack = tuple(e.f["region"] for e in stack)
                ev.enter_ev = stack[-1] if stack else None
        if stack:
            errors.append("rank %d: regions never left: %s" % (r, ", ".join(e.f["region"] for e in stack)))
    # Second pass: leave_ev of non-region events is that of their ENTER.
    for ev in t.all_events():
        if ev.kind not in ("ENTER", "LEAVE") and ev.enter_ev is not None:
            ev.leave_ev = ev.enter_ev.leave_ev
    return errors


def check_monotonic(t):
    errors = []
    for r in t.ranks:
        prev = prev_true = None
        for ev in t.events[r]:
            if prev is not None and ev.time < prev.time:
                errors.append("rank %d: time goes back: %s  after  %s" % (r, ev.line, prev.line))
            tr = ev.f.get("true")
            if tr is not None and prev_true is not None and tr < prev_true:
                errors.append("rank %d: true time goes back at event %d" % (r, ev.idx))
            prev = ev
            if tr is not None:
                prev_true = tr
    return errors


# Which events are stamped with their call's entry and which with its exit.
AT_ENTER = {"SEND", "ISEND", "IRECV_REQUEST", "COLL_BEGIN", "NBC_REQUEST"}
AT_LEAVE = {"RECV", "IRECV", "ISEND_COMPLETE", "CANCELLED", "COLL_END", "NBC_COMPLETE"}


def check_stamps(t, include_sync=False):
    """Send-side events carry the enclosing call's enter time, receive-side and
    completion events its leave time (needs annotate_regions first)."""
    errors = []
    for ev in t.all_events():
        if ev.kind not in AT_ENTER and ev.kind not in AT_LEAVE:
            continue
        if not include_sync and is_sync(ev):
            continue
        if ev.enter_ev is None:
            errors.append("outside any region: %s" % ev.line)
            continue
        # MPI_Init's and MPI_Finalize's communicator-handle collective
        # begins after the tracer's own sync round there
        if ev.kind == "COLL_BEGIN" and ev.region in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize"):
            continue
        if ev.kind in AT_ENTER and ev.time != ev.enter_ev.time:
            errors.append("not stamped at %s entry (%d): %s" % (ev.region, ev.enter_ev.time, ev.line))
        if ev.kind in AT_LEAVE:
            if ev.leave_ev is None:
                errors.append("call never left: %s" % ev.line)
                continue
            # A sync round the tracer runs at the end of a world collective
            # is nested in the call and moves its Leave: the event then
            # carries the PMPI exit, before the round.
            evs = t.events[ev.rank]
            sync = next((e for e in evs[ev.idx + 1:ev.leave_ev.idx]
                         if e.kind == "ENTER" and e.f["region"] == SYNC_REGION
                         and len(e.stack) == len(ev.stack) + 1), None)
            if sync is None and ev.time != ev.leave_ev.time:
                errors.append("not stamped at %s exit: %s" % (ev.region, ev.line))
            elif sync is not None and ev.time > sync.time:
                errors.append("stamped after the sync round in %s: %s" % (ev.region, ev.line))
    return errors


def is_sync(ev):
    return ev.f.get("comm") == SYNC_COMM


def app_messages(t):
    return [ev for ev in t.all_events() if ev.kind in MSG_KINDS and not is_sync(ev)]


def check_sync_isolated(t):
    """The tracer's messages are in its sync region on its comm with its tag;
    nothing of the program's is recorded inside that region."""
    errors = []
    for ev in t.all_events():
        inside = SYNC_REGION in ev.stack and ev.kind not in ("ENTER", "LEAVE")
        if is_sync(ev):
            if not inside or ev.f.get("tag") not in SYNC_TAGS:
                errors.append("sync message outside its region or with another tag: %s" % ev.line)
        elif inside:
            errors.append("program event inside the sync region: %s" % ev.line)
    return errors


def request_index(t):
    """(rank, req) -> list of events naming that request, in order."""
    idx = collections.defaultdict(list)
    for ev in t.all_events():
        if "req" in ev.f and ev.kind != "FLUSH":
            idx[(ev.rank, ev.f["req"])].append(ev)
    return idx


def posting_position(ev, reqs):
    """Where MPI matched a receive: a blocking receive at its event, a
    non-blocking one where it was posted (its IRECV_REQUEST)."""
    if ev.kind == "IRECV":
        for e in reqs.get((ev.rank, ev.f["req"]), []):
            if e.kind == "IRECV_REQUEST" and e.idx < ev.idx:
                return e.idx
        return None
    return ev.idx


def match_messages(t, messages=None):
    """FIFO matching: per (comm, sender world rank, receiver world rank, tag)
    the k-th send matches the k-th receive in posting order.
    Returns (pairs, errors); pairs are (send_event, recv_event)."""
    if messages is None:
        messages = app_messages(t)
    reqs = request_index(t)
    sends = collections.defaultdict(list)
    recvs = collections.defaultdict(list)
    errors = []
    for ev in messages:
        key_comm = ev.f.get("comm")
        if ev.kind in SEND_KINDS:
            sends[(key_comm, ev.rank, ev.f["peer"], ev.f["tag"])].append((ev.idx, ev))
        elif ev.kind in RECV_KINDS:
            pos = posting_position(ev, reqs)
            if pos is None:
                errors.append("IRECV without an earlier IRECV_REQUEST: %s" % ev.line)
                pos = ev.idx
            recvs[(key_comm, ev.f["peer"], ev.rank, ev.f["tag"])].append((pos, ev))
    pairs = []
    for key in sorted(set(sends) | set(recvs), key=repr):
        s = [e for _, e in sorted(sends.get(key, []), key=lambda x: x[0])]
        r = [e for _, e in sorted(recvs.get(key, []), key=lambda x: x[0])]
        for a, b in zip(s, r):
            pairs.append((a, b))
            if a.f["bytes"] != b.f["bytes"]:
                errors.append("matched message sizes differ: %s  <->  %s" % (a.line, b.line))
        for a in s[len(r):]:
            errors.append("send without receive: %s" % a.line)
        for b in r[len(s):]:
            errors.append("receive without send: %s" % b.line)
    return pairs, errors


def check_requests(t, exempt=()):
    """Each ISEND req: one ISEND_COMPLETE (or CANCELLED) after it; each
    IRECV_REQUEST: one IRECV or CANCELLED after it; each NBC_REQUEST: one
    NBC_COMPLETE. `exempt`: (rank, req) allowed to stay incomplete (freed
    while active). Request ids are not reused within a rank."""
    errors = []
    exempt = set(exempt)
    post_kinds = {"ISEND": {"ISEND_COMPLETE", "CANCELLED"},
                  "IRECV_REQUEST": {"IRECV", "CANCELLED"},
                  "NBC_REQUEST": {"NBC_COMPLETE"}}
    for (rank, req), evs in sorted(request_index(t).items()):
        posts = [e for e in evs if e.kind in post_kinds]
        if len(posts) != 1:
            errors.append("rank %d req %d: %d posting events (want 1): %s"
                          % (rank, req, len(posts), "; ".join(e.line for e in evs)))
            continue
        post = posts[0]
        done_kinds = post_kinds[post.kind]
        done = [e for e in evs if e.kind in done_kinds]
        stray = [e for e in evs if e is not post and e not in done]
        if stray:
            errors.append("rank %d req %d: unexpected events: %s" % (rank, req, "; ".join(e.line for e in stray)))
        if any(e.idx < post.idx for e in done):
            errors.append("rank %d req %d: completed before posted" % (rank, req))
        want = (0, 1) if (rank, req) in exempt else (1,)
        if len(done) not in want:
            errors.append("rank %d req %d (%s in %s): %d completions, want %s"
                          % (rank, req, post.kind, post.region, len(done), " or ".join(map(str, want))))
    return errors


def comm_by_members(t, members, exclude=(WORLD, SYNC_COMM)):
    """The one communicator name every rank in `members` defines with exactly
    these members (in this order), other than `exclude`; errors otherwise."""
    names = set()
    errors = []
    for r in members:
        found = [n for n, m in t.comms[r].items() if m == list(members) and n not in exclude]
        if len(found) != 1:
            errors.append("rank %d defines %d communicators with members %s: %s"
                          % (r, len(found), members, found))
        names.update(found)
    if len(names) != 1:
        errors.append("communicator with members %s is not named alike on all ranks: %s" % (members, sorted(names)))
        return None, errors
    return names.pop(), errors


# ---------------------------------------------------------------- reporting

class Report:
    def __init__(self):
        self.failed = 0

    def check(self, what, errors, limit=12):
        errors = list(errors)
        if errors:
            self.failed += 1
            print("not ok - %s" % what)
            for e in errors[:limit]:
                print("# %s" % e)
            if len(errors) > limit:
                print("# ... and %d more" % (len(errors) - limit))
        else:
            print("ok - %s" % what)
        sys.stdout.flush()


def generic_checks(rep, t, np_, exempt=()):
    rep.check("trace has %d ranks, each with events" % np_,
              [] if t.ranks == list(range(np_)) and all(t.events[r] for r in t.ranks)
              else ["ranks in dump: %s" % t.ranks])
    rep.check("ENTER/LEAVE nest properly on every rank", annotate_regions(t))
    rep.check("timestamps non-decreasing on every rank", check_monotonic(t))
    rep.check("send/post events stamped at call entry, receive/completion events at exit", check_stamps(t))
    rep.check("tracer sync messages only inside its sync region", check_sync_isolated(t))
    pairs, errs = match_messages(t)
    rep.check("every application send has exactly one matching receive and vice versa (%d messages)"
              % len(pairs), errs)
    rep.check("every request posted is completed or cancelled exactly once", check_requests(t, exempt))
    return pairs


def diff_multisets(want, got, fmt=repr):
    want, got = collections.Counter(want), collections.Counter(got)
    errs = []
    for k in sorted(want - got, key=repr):
        errs.append("missing %s x%d" % (fmt(k), (want - got)[k]))
    for k in sorted(got - want, key=repr):
        errs.append("unexpected %s x%d" % (fmt(k), (got - want)[k]))
    return errs


# ---------------------------------------------------------------- p2p (tests/mpi/mpi_p2p.c)

def p2p_expectations(np_):
    """tag -> list of expected event tuples, from tests/mpi/mpi_p2p.c.
    Tuple: (rank, kind, peer, lpeer, comm, bytes, region) for messages;
    (rank, kind, None, None, comm, bytes, region) for the request events of a
    message (linked by req); comm is 'world', 'dup' or 'rev'."""
    right = lambda s: (s + 1) % np_
    rev = lambda w: np_ - 1 - w
    exp = collections.defaultdict(list)
    I = 4   # sizeof(int)

    def msg(tag, s, d, nbytes, send_kind, send_region, recv_kind, recv_region,
            comm="world", isend_done=None, irecv_post="MPI_Irecv"):
        lp_d = rev(d) if comm == "rev" else d
        lp_s = rev(s) if comm == "rev" else s
        exp[tag].append((s, send_kind, d, lp_d, comm, nbytes, send_region))
        if send_kind == "ISEND" and isend_done:
            exp[tag].append((s, "ISEND_COMPLETE", None, None, comm, nbytes, isend_done))
        exp[tag].append((d, recv_kind, s, lp_s, comm, nbytes, recv_region))
        if recv_kind == "IRECV":
            exp[tag].append((d, "IRECV_REQUEST", None, None, comm, nbytes, irecv_post))

    for s in range(np_):
        d = right(s)
        msg(101, s, d, I * (10 + s), "SEND", "MPI_Send", "RECV", "MPI_Recv")
        msg(102, s, d, I * (20 + s), "SEND", "MPI_Bsend", "RECV", "MPI_Recv")
        msg(103, s, d, I * (30 + s), "SEND", "MPI_Ssend", "RECV", "MPI_Recv")
        msg(104, s, d, I * (40 + s), "SEND", "MPI_Rsend", "IRECV", "MPI_Wait")
        msg(105, s, d, I * (50 + s), "ISEND", "MPI_Isend", "RECV", "MPI_Recv", isend_done="MPI_Wait")
        msg(106, s, d, I * (55 + s), "ISEND", "MPI_Ibsend", "IRECV", "MPI_Waitall", isend_done="MPI_Waitall")
        msg(107, s, d, I * (60 + s), "ISEND", "MPI_Issend", "IRECV", "MPI_Waitall", isend_done="MPI_Waitall")
        msg(108, s, d, I * (65 + s), "ISEND", "MPI_Irsend", "IRECV", "MPI_Waitall", isend_done="MPI_Waitall")
        if s != 0:
            msg(110 + s, s, 0, I * (70 + s), "SEND", "MPI_Send", "RECV", "MPI_Recv")
        if s != np_ - 1:
            msg(120 + s, s, np_ - 1, I * (75 + s), "ISEND", "MPI_Isend", "IRECV", "MPI_Waitall",
                isend_done="MPI_Wait")
        msg(130, s, d, I * (80 + s), "SEND", "MPI_Sendrecv", "RECV", "MPI_Sendrecv")
        msg(131, s, d, I * 25, "SEND", "MPI_Sendrecv_replace", "RECV", "MPI_Sendrecv_replace")
        for start, done in (("MPI_Start", "MPI_Wait"), ("MPI_Startall", "MPI_Waitall"),
                            ("MPI_Startall", "MPI_Testall")):
            msg(140, s, d, I * (100 + s), "ISEND", start, "IRECV", done, isend_done=done, irecv_post=start)
        msg(150, s, d, I * (110 + s), "ISEND", "MPI_Isend", "RECV", "MPI_Recv", isend_done="MPI_Wait")
        msg(151, s, d, I * (120 + s), "ISEND", "MPI_Isend", "RECV", "MPI_Recv", isend_done="MPI_Wait")
        msg(152, s, d, I * (130 + s), "ISEND", "MPI_Isend", "RECV", "MPI_Mrecv", comm="dup",
            isend_done="MPI_Wait")
        msg(153, s, d, I * (140 + s), "ISEND", "MPI_Isend", "IRECV", "MPI_Wait", comm="rev",
            isend_done="MPI_Wait", irecv_post="MPI_Imrecv")
        for tag, base, done_s, done_r in ((170, 150, "MPI_Wait", "MPI_Wait"),
                                          (171, 155, "MPI_Waitall", "MPI_Waitall"),
                                          (172, 160, "MPI_Waitany", "MPI_Waitany"),
                                          (173, 165, "MPI_Waitsome", "MPI_Waitsome"),
                                          (174, 170, "MPI_Test", "MPI_Test"),
                                          (175, 175, "MPI_Testall", "MPI_Testall"),
                                          (176, 180, "MPI_Testany", "MPI_Testany"),
                                          (177, 185, "MPI_Testsome", "MPI_Testsome")):
            msg(tag, s, d, I * (base + s), "ISEND", "MPI_Isend", "IRECV", done_r, isend_done=done_s)
        for k in range(5):
            msg(178, s, d, I * (190 + k), "ISEND", "MPI_Isend", "IRECV", "MPI_Waitall", isend_done="MPI_Waitall")
        msg(180, s, d, I * (200 + s), "ISEND", "MPI_Isend", "IRECV", "MPI_Waitall", comm="dup",
            isend_done="MPI_Waitall")
        msg(180, s, d, I * (210 + s), "ISEND", "MPI_Isend", "IRECV", "MPI_Waitall", isend_done="MPI_Waitall")
        msg(181, s, d, I * (220 + s), "SEND", "MPI_Send", "RECV", "MPI_Recv", comm="rev")
        msg(190, s, d, I * (230 + s), "ISEND", "MPI_Isend", "RECV", "MPI_Recv")   # freed while active
    return exp


P2P_GROUPS = [
    ("MPI_Send -> MPI_Recv", [101]),
    ("MPI_Bsend (attached buffer) -> MPI_Recv", [102]),
    ("MPI_Ssend -> MPI_Recv", [103]),
    ("MPI_Rsend -> MPI_Irecv posted before a barrier", [104]),
    ("MPI_Isend -> MPI_Recv", [105]),
    ("MPI_Ibsend -> MPI_Irecv", [106]),
    ("MPI_Issend -> MPI_Irecv", [107]),
    ("MPI_Irsend -> MPI_Irecv", [108]),
    ("MPI_Recv(ANY_SOURCE, ANY_TAG, STATUS_IGNORE) shows actual sender and tag", "110+"),
    ("MPI_Irecv(ANY_SOURCE, ANY_TAG) + Waitall(STATUSES_IGNORE) shows actual sender and tag", "120+"),
    ("MPI_Sendrecv", [130]),
    ("MPI_Sendrecv_replace (receive from ANY_SOURCE, STATUS_IGNORE)", [131]),
    ("persistent Send_init/Recv_init started 3 times (Start, Startall; Wait, Waitall, Testall)", [140]),
    ("MPI_Probe then MPI_Recv", [150]),
    ("MPI_Iprobe then MPI_Recv", [151]),
    ("MPI_Mprobe + MPI_Mrecv on a duplicated communicator", [152]),
    ("MPI_Improbe + MPI_Imrecv on a rank-reversed communicator", [153]),
    ("completion in MPI_Wait", [170]),
    ("completion in MPI_Waitall (mixed array, MPI_REQUEST_NULL)", [171]),
    ("completion in MPI_Waitany (mixed array, MPI_REQUEST_NULL)", [172]),
    ("completion in MPI_Waitsome (mixed array, STATUSES_IGNORE)", [173]),
    ("completion in MPI_Test loop", [174]),
    ("completion in MPI_Testall loop (mixed array)", [175]),
    ("completion in MPI_Testany loop (mixed array)", [176]),
    ("completion in MPI_Testsome loop (mixed array, STATUSES_IGNORE)", [177]),
    ("MPI_Waitall over 12 requests, FIFO order of 5 same-tag messages", [178]),
    ("same tag on MPI_COMM_WORLD and a duplicate at once: right comm each", [180]),
    ("blocking Send/Recv on a rank-reversed communicator: world peers, local lpeers", [181]),
    ("MPI_Isend freed while active (MPI_Request_free): posted, not completed", [190]),
]


def p2p_actual(t, comm_alias):
    """tag -> list of actual event tuples in the form of p2p_expectations."""
    reqs = request_index(t)
    got = collections.defaultdict(list)
    alias = lambda c: comm_alias.get(c, c)
    for ev in app_messages(t):
        tag = ev.f["tag"]
        got[tag].append((ev.rank, ev.kind, ev.f["peer"], ev.f["lpeer"], alias(ev.f["comm"]),
                         ev.f["bytes"], ev.region))
        if ev.kind in ("ISEND", "IRECV"):
            for e in reqs.get((ev.rank, ev.f["req"]), []):
                if e.kind in ("ISEND_COMPLETE", "IRECV_REQUEST"):
                    got[tag].append((ev.rank, e.kind, None, None, alias(ev.f["comm"]), ev.f["bytes"], e.region))
    return got


def check_p2p(t, np_):
    rep = Report()
    # Requests freed while active: the MPI_Isend of tag 190.
    exempt = [(ev.rank, ev.f["req"]) for ev in app_messages(t) if ev.kind == "ISEND" and ev.f["tag"] == 190]
    generic_checks(rep, t, np_, exempt)

    dup, e1 = comm_by_members(t, list(range(np_)))
    rev, e2 = comm_by_members(t, list(range(np_ - 1, -1, -1)))
    errs = e1 + e2
    if dup and rev and dup == rev:
        errs.append("duplicate and reversed communicators share the name %r" % dup)
    rep.check("MPI_Comm_dup / MPI_Comm_split communicators: own names, alike on all ranks, right members", errs)
    alias = {WORLD: "world"}
    if dup:
        alias[dup] = "dup"
    if rev:
        alias[rev] = "rev"

    exp = p2p_expectations(np_)
    got = p2p_actual(t, alias)
    fmt = lambda k: "rank %s %s peer=%s lpeer=%s comm=%s bytes=%s in %s" % k
    used = set()
    for name, tags in P2P_GROUPS:
        if tags == "110+":
            tags = [110 + s for s in range(1, np_)]
        elif tags == "120+":
            tags = [120 + s for s in range(np_ - 1)]
        used.update(tags)
        want = [x + (tag,) for tag in tags for x in exp[tag]]
        have = [x + (tag,) for tag in tags for x in got.get(tag, [])]
        rep.check(name, diff_multisets(want, have, lambda k: fmt(k[:7]) + " tag=%d" % k[7]))

    # Persistent requests: every MPI_Start gives a new id (3 per rank and direction).
    errs = []
    for r in range(np_):
        for kind in ("ISEND", "IRECV"):
            ids = [ev.f["req"] for ev in t.events[r] if ev.kind == kind and ev.f.get("tag") == 140]
            if len(set(ids)) != 3:
                errs.append("rank %d: %s tag 140 request ids %s (want 3 distinct)" % (r, kind, ids))
    rep.check("persistent requests: each start has its own request id", errs)

    stray = [ev.line for ev in app_messages(t) if ev.f["tag"] not in used]
    rep.check("MPI_PROC_NULL sends and receives (tags 160-169) and cancelled receives (198, 199) "
              "record no message", [l for l in stray])

    errs = []
    reqs = request_index(t)
    for r in range(np_):
        canc = [ev for ev in t.events[r] if ev.kind == "CANCELLED"]
        got_c = []
        for ev in canc:
            posts = [e for e in reqs[(r, ev.f["req"])] if e.kind == "IRECV_REQUEST"]
            got_c.append((posts[0].region if posts else None, ev.region))
        if got_c != [("MPI_Irecv", "MPI_Wait"), ("MPI_Irecv", "MPI_Waitall")]:
            errs.append("rank %d: cancelled requests (posted in, cancelled in): %s" % (r, got_c))
    rep.check("MPI_Cancel of unmatched MPI_Irecv: CANCELLED in MPI_Wait and MPI_Waitall, no IRECV", errs)
    return rep


# ---------------------------------------------------------------- collectives (tests/mpi/mpi_coll.c)

def region_op(region):
    """Operation of a collective region: MPI_Ineighbor_allgather -> allgather,
    MPI_Reduce_scatter_block -> reduce_scatter_block."""
    n = region[4:].lower()
    if region.startswith("MPI_I"):      # no blocking collective starts with I
        n = n[1:]
    if n.startswith("neighbor_"):
        n = n[len("neighbor_"):]
    return n


def is_in_sync(ev):
    return SYNC_REGION in ev.stack


# The collectives around a communicator's CommCreate / CommDestroy
HANDLE_OPS = ("create_handle", "destroy_handle")


def coll_instances(t):
    """Per rank: list of collective instances in program order (blocking:
    at COLL_BEGIN; non-blocking: at NBC_REQUEST), each a dict with op, comm,
    root, sent, recv, region, blocking, and the events."""
    reqs = request_index(t)
    out = {}
    errors = []
    for r in t.ranks:
        lst = []
        evs = t.events[r]
        for i, ev in enumerate(evs):
            if ev.kind == "COLL_BEGIN":
                if is_in_sync(ev):
                    continue
                end = next((e for e in evs[i + 1:] if e.kind in ("COLL_END", "COLL_BEGIN")), None)
                if end is None or end.kind != "COLL_END":
                    errors.append("rank %d: COLL_BEGIN without COLL_END: %s" % (r, ev.line))
                    continue
                if end.f["op"] in HANDLE_OPS:
                    continue   # a communicator's creation or free (comm_check.py, mapping_check.py)
                lst.append(dict(op=end.f["op"], comm=end.f["comm"], root=end.f["root"], sent=end.f["sent"],
                                recv=end.f["recv"], region=ev.region, end_region=end.region,
                                blocking=True, begin=ev, end=end))
            elif ev.kind == "COLL_END":
                prev = next((e for e in reversed(evs[:i]) if e.kind in ("COLL_END", "COLL_BEGIN")), None)
                if prev is None or prev.kind != "COLL_BEGIN":
                    errors.append("rank %d: COLL_END without COLL_BEGIN: %s" % (r, ev.line))
            elif ev.kind == "NBC_REQUEST":
                done = [e for e in reqs[(r, ev.f["req"])] if e.kind == "NBC_COMPLETE"]
                if len(done) != 1:
                    errors.append("rank %d: NBC_REQUEST req %d has %d NBC_COMPLETE" % (r, ev.f["req"], len(done)))
                    continue
                end = done[0]
                lst.append(dict(op=end.f["op"], comm=end.f["comm"], root=end.f["root"], sent=end.f["sent"],
                                recv=end.f["recv"], region=ev.region, end_region=end.region,
                                blocking=False, begin=ev, end=end))
        out[r] = lst
    return out, errors


def dims_create2(n):
    """MPI_Dims_create(n, 2, {0, 0}): the most balanced factors, larger first."""
    best = (n, 1)
    for d1 in range(1, n + 1):
        if n % d1 == 0 and d1 <= n // d1:
            best = (n // d1, d1)
    return best


def cart_neighbours(me, dims, periods):
    """Neighbour world rank per slot (2d: negative, 2d+1: positive direction
    of dimension d), None for MPI_PROC_NULL; row-major ranks, no reorder."""
    coords, rem = [], me
    for d in reversed(dims):
        coords.insert(0, rem % d)
        rem //= d
    nb = []
    for d, (size, per) in enumerate(zip(dims, periods)):
        for step in (-1, 1):
            c = list(coords)
            c[d] += step
            if not 0 <= c[d] < size:
                if not per:
                    nb.append(None)
                    continue
                c[d] %= size
            r = 0
            for k, sz in zip(c, dims):
                r = r * sz + k
            nb.append(r)
    return nb


def coll_expectations(N):
    """role -> rank -> [(region, op, root world rank, sent, recv, completion region)]
    for tests/mpi/mpi_coll.c, computed by hand from the byte convention of
    src/collectives.c: this rank's view, its own block counted where the
    operation moves one; MPI_IN_PLACE does not change the numbers; nothing
    is counted for MPI_PROC_NULL neighbours or for data MPI does not move
    (Exscan: rank 0 receives nothing, the last rank's data goes nowhere)."""
    I, D = 4, 8
    tri = N * (N + 1) // 2                 # sum of r+1 over ranks
    exp = {"world": {}, "half": {}, "ring": {}, "grid": {}}
    for me in range(N):
        L = []

        def c(region, op, root, sent, recv, done=None):
            L.append((region, op, root, sent, recv, done or region))

        def rooted(region, op, root, root_sent, root_recv, sent, recv, done=None):
            if me == root:
                c(region, op, root, root_sent, root_recv, done)
            else:
                c(region, op, root, sent, recv, done)

        c("MPI_Barrier", "barrier", -1, 0, 0)
        r = 2 % N
        rooted("MPI_Bcast", "bcast", r, 10 * I * N, 10 * I, 0, 10 * I)
        rooted("MPI_Bcast", "bcast", 0, 7 * D * N, 7 * D, 0, 7 * D)
        rooted("MPI_Gather", "gather", 1, 5 * I, 5 * I * N, 5 * I, 0)
        rooted("MPI_Gather", "gather", N - 1, 5 * I, 5 * I * N, 5 * I, 0)          # in place at root
        rooted("MPI_Gatherv", "gatherv", 0, I * 1, I * tri, I * (me + 1), 0)
        rooted("MPI_Gatherv", "gatherv", 1, I * 2, I * tri, I * (me + 1), 0)       # in place at root
        rooted("MPI_Scatter", "scatter", 1, 6 * I * N, 6 * I, 0, 6 * I)
        rooted("MPI_Scatter", "scatter", 0, 6 * I * N, 6 * I, 0, 6 * I)            # in place at root
        rooted("MPI_Scatterv", "scatterv", 2 % N, I * N * N, I * (2 * me + 1), 0, I * (2 * me + 1))
        rooted("MPI_Scatterv", "scatterv", 0, I * N * N, I * 1, 0, I * (2 * me + 1))   # in place at root
        c("MPI_Allgather", "allgather", -1, 3 * I * N, 3 * I * N)
        c("MPI_Allgather", "allgather", -1, 3 * I * N, 3 * I * N)                  # in place
        agv = I * (tri + N)                     # sum of r+2
        c("MPI_Allgatherv", "allgatherv", -1, I * (me + 2) * N, agv)
        c("MPI_Allgatherv", "allgatherv", -1, I * (me + 2) * N, agv)               # in place
        c("MPI_Alltoall", "alltoall", -1, 2 * I * N, 2 * I * N)
        c("MPI_Alltoall", "alltoall", -1, 2 * I * N, 2 * I * N)                    # in place
        a2av = sum(I * (me + j + 1) for j in range(N))
        c("MPI_Alltoallv", "alltoallv", -1, a2av, a2av)
        a2aw = sum((me + j + 1) * (D if (me + j) % 2 else I) for j in range(N))
        c("MPI_Alltoallw", "alltoallw", -1, a2aw, a2aw)
        c("MPI_Allreduce", "allreduce", -1, 4 * D * N, 4 * D * N)
        c("MPI_Allreduce", "allreduce", -1, 4 * D * N, 4 * D * N)                  # in place
        rooted("MPI_Reduce", "reduce", N - 1, 3 * I, 3 * I * N, 3 * I, 0)
        rooted("MPI_Reduce", "reduce", 0, 3 * I, 3 * I * N, 3 * I, 0)              # in place at root
        c("MPI_Reduce_scatter", "reduce_scatter", -1, I * tri, I * (me + 1) * N)
        c("MPI_Reduce_scatter", "reduce_scatter", -1, I * tri, I * (me + 1) * N)   # in place
        c("MPI_Reduce_scatter_block", "reduce_scatter_block", -1, 2 * I * N, 2 * I * N)
        c("MPI_Scan", "scan", -1, 5 * I, 5 * I)
        c("MPI_Scan", "scan", -1, 5 * I, 5 * I)                                    # in place
        c("MPI_Exscan", "exscan", -1, 0 if me == N - 1 else 5 * I, 0 if me == 0 else 5 * I)
        # non-blocking, in posting order, with the call that completes them
        c("MPI_Ibarrier", "barrier", -1, 0, 0, "MPI_Wait")
        rooted("MPI_Ibcast", "bcast", 1, 10 * I * N, 10 * I, 0, 10 * I, "MPI_Waitall")
        rooted("MPI_Igather", "gather", 2 % N, 5 * I, 5 * I * N, 5 * I, 0, "MPI_Waitall")
        rooted("MPI_Igatherv", "gatherv", 0, I, I * tri, I * (me + 1), 0, "MPI_Test")
        rooted("MPI_Iscatter", "scatter", N - 1, 6 * I * N, 6 * I, 0, 6 * I, "MPI_Testall")
        rooted("MPI_Iscatterv", "scatterv", 1, I * N * N, I * (2 * me + 1), 0, I * (2 * me + 1), "MPI_Testall")
        c("MPI_Iallgather", "allgather", -1, 3 * I * N, 3 * I * N, "MPI_Waitany")   # in place
        c("MPI_Iallgatherv", "allgatherv", -1, I * (me + 2) * N, agv, "MPI_Waitany")
        c("MPI_Ialltoall", "alltoall", -1, 2 * I * N, 2 * I * N, "MPI_Waitsome")
        c("MPI_Ialltoallv", "alltoallv", -1, a2av, a2av, "MPI_Waitsome")
        c("MPI_Ialltoallw", "alltoallw", -1, a2aw, a2aw, "MPI_Waitsome")
        c("MPI_Iallreduce", "allreduce", -1, 4 * D * N, 4 * D * N, "MPI_Testany")
        rooted("MPI_Ireduce", "reduce", 1, 3 * I, 3 * I * N, 3 * I, 0, "MPI_Testany")
        c("MPI_Ireduce_scatter", "reduce_scatter", -1, I * tri, I * (me + 1) * N, "MPI_Testsome")
        c("MPI_Ireduce_scatter_block", "reduce_scatter_block", -1, 2 * I * N, 2 * I * N, "MPI_Testsome")
        c("MPI_Iscan", "scan", -1, 5 * I, 5 * I, "MPI_Testsome")
        c("MPI_Iexscan", "exscan", -1, 0 if me == N - 1 else 5 * I, 0 if me == 0 else 5 * I, "MPI_Testsome")
        # the final reductions of the error count and the checksum
        rooted("MPI_Reduce", "reduce", 0, I, I * N, I, 0)
        rooted("MPI_Reduce", "reduce", 0, D, D * N, D, 0)
        exp["world"][me] = L

        # half: MPI_Comm_split(world, me % 2, -me)
        m = sorted((r for r in range(N) if r % 2 == me % 2), reverse=True)
        hn = len(m)
        L = []
        c("MPI_Barrier", "barrier", -1, 0, 0)
        rooted("MPI_Bcast", "bcast", m[0], 4 * I * hn, 4 * I, 0, 4 * I)
        rooted("MPI_Reduce", "reduce", m[-1], 2 * I, 2 * I * hn, 2 * I, 0)
        c("MPI_Iallreduce", "allreduce", -1, 2 * I * hn, 2 * I * hn, "MPI_Wait")
        exp["half"][me] = L

        for role, dims, periods in (("ring", (N,), (True,)), ("grid", dims_create2(N), (False, False))):
            nb = cart_neighbours(me, dims, periods)
            live = [k for k in range(len(nb)) if nb[k] is not None]
            n = len(live)
            sc = [2 * (k // 2) + (2 if k % 2 else 1) for k in range(len(nb))]
            rc = [2 * (k // 2) + (1 if k % 2 else 2) for k in range(len(nb))]
            a2v_s = sum(I * sc[k] for k in live)
            a2v_r = sum(I * rc[k] for k in live)
            L = []
            c("MPI_Neighbor_allgather", "allgather", -1, 3 * I * n, 3 * I * n)
            c("MPI_Neighbor_alltoall", "alltoall", -1, 2 * I * n, 2 * I * n)
            c("MPI_Neighbor_allgatherv", "allgatherv", -1, I * (me + 1) * n, sum(I * (nb[k] + 1) for k in live))
            c("MPI_Neighbor_alltoallv", "alltoallv", -1, a2v_s, a2v_r)
            c("MPI_Neighbor_alltoallw", "alltoallw", -1, a2v_s, a2v_r)
            c("MPI_Ineighbor_allgather", "allgather", -1, 3 * I * n, 3 * I * n, "MPI_Waitall")
            c("MPI_Ineighbor_alltoall", "alltoall", -1, 2 * I * n, 2 * I * n, "MPI_Waitall")
            c("MPI_Ineighbor_alltoallv", "alltoallv", -1, a2v_s, a2v_r, "MPI_Wait")
            exp[role][me] = L
    return exp


def coll_comm_roles(t, N):
    """Communicator name -> role (world, half, ring, grid) as seen by each rank."""
    roles = {}
    errs = []
    for r in range(N):
        m = sorted((q for q in range(N) if q % 2 == r % 2), reverse=True)
        names = list(t.comms[r])
        role = {WORLD: "world"}
        half = [n for n in names if t.comms[r][n] == m and n not in (WORLD, SYNC_COMM, "MPI_COMM_SELF")]
        full = [n for n in names if t.comms[r][n] == list(range(N)) and n not in (WORLD, SYNC_COMM)]
        if len(full) != 2:
            errs.append("rank %d: want 2 Cartesian communicators of all ranks, found %s" % (r, full))
        else:
            role[full[0]] = "ring"        # defined in creation order
            role[full[1]] = "grid"
        if len(half) < 1:
            errs.append("rank %d: no communicator with members %s" % (r, m))
        else:
            role[half[0]] = "half"
        roles[r] = role
    return roles, errs


def check_coll(t, np_):
    rep = Report()
    generic_checks(rep, t, np_)
    inst, errs = coll_instances(t)
    rep.check("COLL_BEGIN/COLL_END pair up, every NBC_REQUEST has one NBC_COMPLETE", errs)

    # Region placement.
    errs = []
    for r, lst in inst.items():
        for c in lst:
            if c["blocking"]:
                if c["region"] != c["end_region"] or c["begin"].enter_ev is not c["end"].enter_ev:
                    errs.append("rank %d: COLL_BEGIN in %s, COLL_END in %s" % (r, c["region"], c["end_region"]))
                if c["region"] is None or region_op(c["region"]) != c["op"]:
                    errs.append("rank %d: op %s recorded in region %s" % (r, c["op"], c["region"]))
                if c["begin"].enter_ev is not None and c["begin"].idx != c["begin"].enter_ev.idx + 1:
                    errs.append("rank %d: COLL_BEGIN is not the first event of %s" % (r, c["region"]))
            else:
                if c["region"] is None or not c["region"].startswith("MPI_I") or region_op(c["region"]) != c["op"]:
                    errs.append("rank %d: NBC_REQUEST of op %s in region %s" % (r, c["op"], c["region"]))
                if c["end_region"] not in ("MPI_Wait", "MPI_Waitall", "MPI_Test", "MPI_Testall",
                                           "MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome"):
                    errs.append("rank %d: NBC_COMPLETE of %s in region %s" % (r, c["op"], c["end_region"]))
    rep.check("blocking collectives: COLL_BEGIN and COLL_END in the same call of that operation; "
              "non-blocking: posted in MPI_I<op>, completed in a Wait/Test", errs)

    # Same sequence per communicator on every member.
    errs = []
    seqs = collections.defaultdict(dict)   # comm -> rank -> [(op, root, blocking, region)]
    for r, lst in inst.items():
        for c in lst:
            seqs[c["comm"]].setdefault(r, []).append((c["op"], c["root"], c["blocking"], c["region"]))
    for comm, per_rank in sorted(seqs.items()):
        members = set(t.comms[min(per_rank)].get(comm, []))
        if set(per_rank) != members:
            errs.append("comm %s: collectives on ranks %s, members %s" % (comm, sorted(per_rank), sorted(members)))
        ref_rank = min(per_rank)
        for r, s in per_rank.items():
            if s != per_rank[ref_rank]:
                k = next((i for i, (a, b) in enumerate(zip(s, per_rank[ref_rank])) if a != b),
                         min(len(s), len(per_rank[ref_rank])))
                errs.append("comm %s: rank %d differs from rank %d at collective #%d: %s vs %s"
                            % (comm, r, ref_rank, k, s[k:k + 1], per_rank[ref_rank][k:k + 1]))
    rep.check("every member of a communicator records the same sequence of collectives (op, root, kind)", errs)

    # Conservation: per collective instance, bytes sent over all ranks = bytes received.
    errs = []
    for comm, per_rank in sorted(seqs.items()):
        lists = {r: [c for c in inst[r] if c["comm"] == comm] for r in per_rank}
        n = min(len(l) for l in lists.values())
        for k in range(n):
            sent = sum(l[k]["sent"] for l in lists.values())
            recv = sum(l[k]["recv"] for l in lists.values())
            if sent != recv:
                c = lists[min(lists)][k]
                errs.append("comm %s collective #%d %s (%s): sum sent %d != sum received %d; per rank sent/recv %s"
                            % (comm, k, c["op"], c["region"], sent, recv,
                               " ".join("%d/%d" % (l[k]["sent"], l[k]["recv"]) for _, l in sorted(lists.items()))))
    rep.check("bytes are conserved: per collective, total sent over ranks = total received", errs)

    # Hand-computed expectations, per communicator and per operation.
    roles, errs = coll_comm_roles(t, np_)
    rep.check("communicators of mpi_coll.c identified (world, split half, ring, grid)", errs)
    exp = coll_expectations(np_)
    got = {role: {} for role in exp}
    for r in range(np_):
        for role in exp:
            got[role][r] = []
        for c in inst.get(r, []):
            role = roles.get(r, {}).get(c["comm"])
            if role is None:
                continue
            got[role][r].append((c["region"], c["op"], c["root"], c["sent"], c["recv"], c["end_region"]))
    fmt = lambda x: "%s op=%s root=%s sent=%s recv=%s completed in %s" % x
    for role in ("world", "half", "ring", "grid"):
        errs = []
        by_region = collections.OrderedDict()
        for r in range(np_):
            want, have = exp[role][r], got[role][r]
            if [w[0] for w in want] != [h[0] for h in have]:
                errs.append("rank %d: calls %s, want %s" % (r, [h[0] for h in have], [w[0] for w in want]))
            for k, w in enumerate(want):
                h = have[k] if k < len(have) else None
                by_region.setdefault(w[0], [])
                if h != w:
                    by_region[w[0]].append("rank %d #%d: got %s; want %s"
                                           % (r, k, fmt(h) if h else "nothing", fmt(w)))
        rep.check("%s: the sequence of collective calls is as in mpi_coll.c" % role, errs)
        for region, e in by_region.items():
            rep.check("%s: %s: op, root (world rank), sent/recv bytes as computed by hand" % (role, region), e)
    return rep


# ---------------------------------------------------------------- intercoll (tests/mpi/mpi_intercoll.c)

LOG_LEN = 8192   # mpi_intercoll.c's log, gathered to world rank 0 at the end


def intercoll_expectations(N):
    """rank -> [(region, op, root world rank or -1, root_is, sent, recv, sources, completion region)]
    for every collective call of mpi_intercoll.c, by MPI's rules for
    intercommunicators (MPI_ROOT = SELF, MPI_PROC_NULL = THIS_GROUP)."""
    exp = {}
    groups = [[r for r in range(N) if r % 2 == g] for g in (0, 1)]
    for w in range(N):
        color = w % 2
        me = groups[color].index(w)
        lsize, rsize = len(groups[color]), len(groups[1 - color])
        out = []

        def c(region, op, root, sent, recv, sources=None, done=None, root_is=None):
            out.append((region, op, root, root_is, sent, recv, sources, done or region))

        for d in (0, 1):
            if color == d:
                part = "root" if me == 0 else "none"
            else:
                part = "member"
            root, root_is = (d, None) if part == "member" else (-1, "SELF" if part == "root" else "THIS_GROUP")
            cnt = [0 if i == 1 else i + 1 for i in range(rsize)]
            mycount = 0 if me == 1 else me + 1

            def rooted(region, op, root_bytes, member_bytes, root_sends, done=None):
                if part == "root":
                    s_, r_ = (root_bytes, 0) if root_sends else (0, root_bytes)
                elif part == "member":
                    s_, r_ = (0, member_bytes) if root_sends else (member_bytes, 0)
                else:
                    s_, r_ = 0, 0
                c(region, op, root, s_, r_, done=done, root_is=root_is)

            rooted("MPI_Bcast", "bcast", 12 * rsize, 12, True)
            rooted("MPI_Gather", "gather", 8 * rsize, 8, False)
            rooted("MPI_Gatherv", "gatherv", 4 * sum(cnt), 4 * mycount, False)
            rooted("MPI_Scatter", "scatter", 8 * rsize, 8, True)
            rooted("MPI_Scatterv", "scatterv", 4 * sum(cnt), 4 * mycount, True)
            rooted("MPI_Reduce", "reduce", 8 * rsize, 8, False)
            rooted("MPI_Ibcast", "bcast", 8 * rsize, 8, True, "MPI_Waitall")
            rooted("MPI_Igatherv", "gatherv", 4 * sum(cnt), 4 * mycount, False, "MPI_Waitall")
            rooted("MPI_Iscatterv", "scatterv", 4 * sum(cnt), 4 * mycount, True, "MPI_Waitall")
            rooted("MPI_Ireduce", "reduce", 8 * rsize, 8, False, "MPI_Waitall")
        v = [(me + j) % 2 for j in range(rsize)]
        src = ",".join(str(j) for j in range(rsize) if v[j]) if 0 < sum(v) < rsize else None
        c("MPI_Barrier", "barrier", -1, 0, 0)
        c("MPI_Allgather", "allgather", -1, 4 * rsize, 4 * rsize)
        c("MPI_Allgatherv", "allgatherv", -1, 4 * rsize if me == 0 else 0, 4)
        c("MPI_Alltoall", "alltoall", -1, 4 * rsize, 4 * rsize)
        c("MPI_Alltoallv", "alltoallv", -1, 4 * sum(v), 4 * sum(v), src)
        c("MPI_Alltoallw", "alltoallw", -1, 4 * sum(v), 4 * sum(v), src)
        c("MPI_Allreduce", "allreduce", -1, 8 * rsize, 8 * rsize)
        c("MPI_Reduce_scatter_block", "reduce_scatter_block", -1, 4 * rsize * lsize, 4 * rsize * rsize)
        c("MPI_Reduce_scatter", "reduce_scatter", -1, 4 * lsize * rsize,
          4 * (lsize * rsize if me == 0 else 0) * rsize)
        c("MPI_Ialltoallv", "alltoallv", -1, 4 * sum(v), 4 * sum(v), src, "MPI_Waitall")
        c("MPI_Iallreduce", "allreduce", -1, 8 * rsize, 8 * rsize, done="MPI_Waitall")
        c("MPI_Ibarrier", "barrier", -1, 0, 0, done="MPI_Waitall")
        odd = sum(i % 2 for i in range(N))
        c("MPI_Gatherv", "gatherv", 1, 4 * (w % 2), 4 * odd if w == 1 else 0)
        c("MPI_Scatterv", "scatterv", 1, 4 * odd if w == 1 else 0, 4 * (w % 2))
        c("MPI_Gather", "gather", 1, 4, 4 * N if w == 1 else 0)
        c("MPI_Allgatherv", "allgatherv", -1, 4 * (w % 2) * N, 4 * odd)
        c("MPI_Bcast", "bcast", 0, 0, 0)
        c("MPI_Allreduce", "allreduce", -1, 0, 0)
        c("MPI_Alltoall", "alltoall", -1, 0, 0)
        c("MPI_Alltoallv", "alltoallv", -1, 0, 0)
        c("MPI_Gather", "gather", 0, LOG_LEN, LOG_LEN * N if w == 0 else 0)
        exp[w] = out
    return exp


def check_intercoll(t, np_):
    rep = Report()
    generic_checks(rep, t, np_)
    inst, errs = coll_instances(t)
    rep.check("collective events pair up", errs)
    exp = intercoll_expectations(np_)
    fmt = lambda x: ("%s op=%s root=%s root_is=%s sent=%s recv=%s sources=%s completed in %s" % x) if x else "nothing"
    by_region = collections.OrderedDict()
    errs = []
    for r in range(np_):
        have = [(c["region"], c["op"], c["root"], c["end"].f.get("root_is"), c["sent"], c["recv"],
                 c["end"].f.get("sources"), c["end_region"]) for c in inst.get(r, [])]
        want = exp[r]
        if [h[0] for h in have] != [x[0] for x in want]:
            errs.append("rank %d: calls %s, want %s" % (r, [h[0] for h in have], [x[0] for x in want]))
        for k, x in enumerate(want):
            h = have[k] if k < len(have) else None
            key = "%s (%s)" % (x[0], "intercommunicator" if k < 32 else "world")
            by_region.setdefault(key, [])
            if h != x:
                by_region[key].append("rank %d #%d: got %s; want %s" % (r, k, fmt(h), fmt(x)))
    rep.check("the sequence of collective calls is as in mpi_intercoll.c", errs)
    for key, e in by_region.items():
        rep.check("%s: op, root (SELF/THIS_GROUP/world rank), sent/recv bytes, sources as MPI defines them" % key, e)
    # conservation, per instance, over both groups of the intercommunicator
    errs = []
    n = min(len(l) for l in inst.values()) if inst else 0
    for k in range(n):
        sent = sum(inst[r][k]["sent"] for r in inst)
        recv = sum(inst[r][k]["recv"] for r in inst)
        if sent != recv:
            errs.append("collective #%d %s: sum sent %d != sum received %d" % (k, inst[0][k]["region"], sent, recv))
    rep.check("bytes are conserved: per collective, total sent over ranks = total received", errs)
    return rep


def main(argv):
    if len(argv) != 4 or argv[1] not in ("p2p", "coll", "intercoll"):
        sys.stderr.write("usage: trace_check.py p2p|coll|intercoll DUMP_FILE NP\n")
        return 2
    with open(argv[2]) as f:
        t = load_dump(f.read())
    np_ = int(argv[3])
    if argv[1] == "p2p":
        check_p2p(t, np_)
    elif argv[1] == "intercoll":
        check_intercoll(t, np_)
    else:
        check_coll(t, np_)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
