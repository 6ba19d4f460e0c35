#!/usr/bin/env python3
"""merged_check.py ARCHIVE/traces.otf2 [REPORT.json] — an independent check of a merged
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

With REPORT.json (the merge's report), the accuracy figures the report
prints are recomputed from the archive alone -- its timestamps and the
true_time attribute of each event (events without one are no measurement)
-- and one line before the summary says whether they agree:
    accuracy events K error_max_ns A (report B) error_median_ns C (report D)
      interval_distortion_max_ns E (report F) domains_inside I of J (report L) mismatches X
Errors are residuals of the least-squares line of (time - true time) over
true time, as the report defines them; a domain's true offset is its
offset minus the median, over its events, of its global time minus the
reference's global time at the same true time (interpolated); it must lie
inside the domain's bounds. Under SYNCTRACE_SKEW a clock domain is a rank.
"""
import bisect
import collections
import json
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


def fit_residuals(tt, err):
    """|residual| of each err[i] from the least-squares line over tt."""
    n = len(tt)
    mx = sum(tt) / n
    my = sum(err) / n
    sxx = sum((x - mx) ** 2 for x in tt)
    sxy = sum((x - mx) * (y - my) for x, y in zip(tt, err))
    slope = sxy / sxx if sxx > 0 else 0.0
    return [abs(y - (my + slope * (x - mx))) for x, y in zip(tt, err)], slope


def accuracy(samples, report):
    """samples: location -> [(time, true time)] in event order. Returns the line and the mismatch count."""
    truth = report.get("truth")
    pts = [p for v in samples.values() for p in v]
    if not truth or len(pts) < 2:
        return "accuracy events %d no_truth %d" % (len(pts), 0 if truth else 1), (1 if truth else 0)
    origin = min(p[1] for p in pts)
    tt = [float(p[1] - origin) for p in pts]
    err = [float(p[0]) - x for p, x in zip(pts, tt)]
    res, slope = fit_residuals(tt, err)
    emax, emed = max(res), median(res)
    dist = 0.0
    for v in samples.values():
        for (g0, t0), (g1, t1) in zip(v, v[1:]):
            dist = max(dist, abs((g1 - g0) - (t1 - t0) * (1 + slope)))
    # true offsets per domain (a rank under SYNCTRACE_SKEW, all its threads)
    by_rank = collections.defaultdict(list)
    for loc, v in samples.items():
        by_rank[loc & 0xffffffff].extend(v)
    ref = None
    for d in report["domains"]:
        if d.get("offset_ns") == 0 and d.get("lo_ns") is not None and abs(d["lo_ns"]) < 1e-6 and abs(d["hi_ns"]) < 1e-6:
            ref = d["domain"]
    inside = checked = 0
    bad = 0
    if ref is not None and ref in by_rank:
        rv = sorted(by_rank[ref], key=lambda p: p[1])
        rt = [p[1] for p in rv]
        for d in report["domains"]:
            if d["domain"] not in by_rank or len(d.get("segments", [])) != 1:
                continue
            diffs = []
            for g, t in by_rank[d["domain"]]:
                j = bisect.bisect_right(rt, t) - 1
                j = min(max(j, 0), len(rt) - 2)
                (g0, t0), (g1, t1) = rv[j], rv[j + 1]
                gref = g0 + (g1 - g0) * (t - t0) / (t1 - t0) if t1 > t0 else g0
                diffs.append(g - gref)
            diffs.sort()
            k = len(diffs) // 2
            true_off = d["offset_ns"] - diffs[k]
            checked += 1
            ok = d["lo_ns"] is not None and d["lo_ns"] <= true_off <= d["hi_ns"]
            inside += ok
            # The report's own figure and verdict must agree with ours. The
            # archive's times are whole ns, the report's are not, so its
            # median may be a neighbouring event's value: it must lie
            # between our neighbours of the median (2 ns of rounding beyond),
            # and a verdict is compared only where that span is clear of the
            # bounds.
            span_lo = d["offset_ns"] - diffs[min(k + 1, len(diffs) - 1)] - 2
            span_hi = d["offset_ns"] - diffs[max(k - 1, 0)] + 2
            clear = d["lo_ns"] is not None and not (span_lo <= d["lo_ns"] <= span_hi or span_lo <= d["hi_ns"] <= span_hi)
            # The report measures the clocks' offsets on the clock model's
            # times; the archive's are those moved by the repair too: an
            # event and the reference's around it each by up to max_move_ns,
            # so each difference, and their median, by up to twice that.
            repair = report.get("repair", {})
            if repair.get("applied") and repair.get("events_moved", 0) > 0:
                span_lo -= 2 * repair.get("max_move_ns", 0.0)
                span_hi += 2 * repair.get("max_move_ns", 0.0)
            if "true_offset_ns" not in d or not span_lo <= d["true_offset_ns"] <= span_hi:
                bad += 1
                print("accuracy: domain %s: the report's true offset %s ns, ours %.3f (its median's neighbours "
                      "give [%.3f, %.3f]; %d events)" % (d["domain"], d.get("true_offset_ns"), true_off, span_lo,
                                                         span_hi, len(diffs)), file=sys.stderr)
            elif d.get("true_inside_bounds") is not ok and clear:
                bad += 1
                print("accuracy: domain %s: the report says the true offset is %s its bounds [%s, %s], ours %.3f "
                      "says %s" % (d["domain"], "inside" if d.get("true_inside_bounds") else "outside", d["lo_ns"],
                                   d["hi_ns"], true_off, "inside" if ok else "outside"), file=sys.stderr)
    # 1 ns: the archive's times are whole nanoseconds, the report's doubles
    tol = 1.0
    if bad:
        print("accuracy: %d domain figure(s) differ from the report" % bad, file=sys.stderr)
    bad += abs(emax - truth["error_max_ns"]) > tol
    bad += abs(emed - truth["error_median_ns"]) > tol
    bad += abs(dist - truth["interval_distortion_max_ns"]) > tol
    line = ("accuracy events %d error_max_ns %.3f (report %.3f) error_median_ns %.3f (report %.3f) "
            "interval_distortion_max_ns %.3f (report %.3f) domains_inside %d of %d (report %d) mismatches %d"
            % (len(pts), emax, truth["error_max_ns"], emed, truth["error_median_ns"], dist,
               truth["interval_distortion_max_ns"], inside, checked, truth["domains_inside_bounds"], bad))
    return line, bad


def median(v):
    """the report's median: the element at n/2 of the sorted values"""
    return sorted(v)[len(v) // 2] if v else 0.0


def main(path, report_path=None, list_peers=False):
    fix_intercomm_fields()
    sends = collections.defaultdict(list)                  # channel -> [(issue time, location, n, send time)]
    posted = collections.defaultdict(list)                 # receiver rank -> [(post time, location, n, channel, time)]
    pending = {}                                           # (location, request id) -> (post time, n)
    post_counter = collections.Counter()
    entered = {}                                           # location -> when its current call began
    last = {}
    events = nonmonotonic = 0
    samples = collections.defaultdict(list)                # location -> [(time, true time)]
    with otf2.reader.open(path) as trace:
        true_attr = next((a for a in trace.definitions.attributes if a.name == "true_time"), None)
        peers = Peers(trace)
        for loc, ev in trace.events:
            events += 1
            if ev.time < last.get(loc, 0):
                nonmonotonic += 1
            last[loc] = ev.time
            kind = type(ev).__name__
            if true_attr is not None and ev.attributes is not None and true_attr in ev.attributes:
                samples[loc._ref].append((ev.time, ev.attributes[true_attr]))
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
    if report_path:
        with open(report_path) as f:
            line, _ = accuracy(samples, json.load(f))
        print(line)
    print("events %d messages %d tachyons %d nonmonotonic %d unmatched_sends %d unmatched_receives %d"
          % (events, messages, tachyons, nonmonotonic, unmatched_sends, unmatched_recvs))


if __name__ == "__main__":
    list_peers = "--peers" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--peers"]
    if len(args) not in (1, 2):
        sys.exit("usage: merged_check.py [--peers] ARCHIVE/traces.otf2 [REPORT.json]")
    main(args[0], args[1] if len(args) > 1 else None, list_peers)
