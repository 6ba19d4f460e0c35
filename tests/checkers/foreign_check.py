#!/usr/bin/env python3
"""foreign_check.py INPUT OUT [SKEW_JSON]: `synctrace merge`'s copy of a
foreign OTF2 archive (INPUT, e.g. Score-P's traces.otf2) against the input
and the truth, through python3-otf2 (with its InterComm fix):

  - every location has the input's events, in the same order, of the same
    kinds (the record-for-record check of every field is otf2copy_check.py's);
  - every location's times never decrease, and the copy has no ClockOffset;
  - no message is received before it was sent (matched per communicator,
    sender, receiver and tag, in order);
  - the threads of a process keep their order against its forks and joins
    (ThreadFork, ThreadJoin, ThreadTeamBegin/End, ThreadCreate/Wait...):
    an event of any of its locations that the input has after (before)
    one is after (before) it in the copy, ties allowed (the input's times
    of one process are of one clock: their order is the truth);
  - with SKEW_JSON (the reference traces' truth: each rank's exact map from
    interpolated input times to true time), the copy's error against the
    true time, after one common affine map, at the max and the median, and
    the same for the input's own interpolated ClockOffsets: ours must be no
    worse at the max, nor at the median by more than 20 ns.

Prints TAP lines ("ok - ..." / "not ok - ...") and a JSON line of figures."""
import bisect
import json
import statistics
import sys

import otf2

sys.path.insert(0, __import__("os").path.dirname(__file__))
from merged_check import fix_intercomm_fields  # noqa: E402

SEND = ("MpiSend", "MpiIsend")
RECV = ("MpiRecv", "MpiIrecv")


def report(ok, text):
    print(("ok - " if ok else "not ok - ") + text)
    return ok


def read(path):
    """per location ref: [(kind, time, event)], the MPI ranks' locations, the clock"""
    with otf2.reader.open(path) as trace:
        defs = trace.definitions
        mpi = None
        for g in defs.groups:
            if g.group_type == otf2.GroupType.COMM_LOCATIONS and g.paradigm == otf2.Paradigm.MPI:
                mpi = [loc._ref for loc in g.members]
                break
        comms = {}
        for c in defs.comms:
            if isinstance(c, otf2.definitions.InterComm):
                comms[c._ref] = ("inter", [m._ref for m in c.groupA.members], [m._ref for m in c.groupB.members])
            elif c.group.group_type == otf2.GroupType.COMM_SELF:
                comms[c._ref] = ("self", None, None)
            else:
                comms[c._ref] = ("intra", [m._ref for m in c.group.members], None)
        rank_of = {loc: r for r, loc in enumerate(mpi or [])}
        group_of = {loc._ref: loc.group._ref for loc in defs.locations}
        offsets = sum(1 for _ in getattr(defs, "clock_offsets", []))
        events = {}
        for loc, ev in trace.events:
            events.setdefault(loc._ref, []).append((type(ev).__name__, ev.time, ev))
        clock = defs.clock_properties
        return events, mpi or [], rank_of, comms, group_of, offsets, clock.timer_resolution


def world(comms, comm, me, local):
    """world rank of communicator-local rank `local` seen from world rank `me`"""
    kind, a, b = comms.get(comm, ("intra", None, None))
    if kind == "self":
        return me
    if kind == "inter":
        other = b if me in a else a
        return other[local] if local < len(other) else None
    return a[local] if a is not None and local < len(a) else None


def tachyons(events, mpi, rank_of, comms):
    """messages received before they were sent, the worst (ns), and how many matched"""
    sends = {}
    for loc, evs in events.items():
        me = rank_of.get(loc)
        for kind, t, ev in evs:
            if kind in SEND and me is not None:
                dst = world(comms, ev.communicator._ref, me, ev.receiver)
                sends.setdefault((ev.communicator._ref, me, dst, ev.msg_tag), []).append(t)
    matched, back, worst = 0, 0, 0
    taken = {}
    for loc, evs in events.items():
        me = rank_of.get(loc)
        for kind, t, ev in evs:
            if kind in RECV and me is not None:
                src = world(comms, ev.communicator._ref, me, ev.sender)
                key = (ev.communicator._ref, src, me, ev.msg_tag)
                k = taken.get(key, 0)
                if k < len(sends.get(key, [])):
                    taken[key] = k + 1
                    matched += 1
                    if t < sends[key][k]:
                        back += 1
                        worst = max(worst, sends[key][k] - t)
    return matched, back, worst


SYNC = ("ThreadFork", "ThreadJoin", "ThreadTeamBegin", "ThreadTeamEnd", "ThreadCreate", "ThreadWait",
        "ThreadBegin", "ThreadEnd")


def thread_order(a_ev, b_ev, group_of):
    """events of a process put on the other side of one of its thread
    synchronisations (nearest before and after in input time) in the copy"""
    syncs = {}
    for loc, evs in a_ev.items():
        for (kind, t_in, _), (_, t_out, _) in zip(evs, b_ev.get(loc, [])):
            if kind in SYNC:
                syncs.setdefault(group_of[loc], []).append((t_in, t_out, loc))
    checked = wrong = 0
    for g in syncs:
        syncs[g].sort()
    for loc, evs in a_ev.items():
        sy = syncs.get(group_of.get(loc))
        if not sy:
            continue
        keys = [x[0] for x in sy]
        for (kind, t_in, _), (_, t_out, _) in zip(evs, b_ev.get(loc, [])):
            i = bisect.bisect_left(keys, t_in)
            before = sy[i - 1] if i > 0 else None            # input time < t_in
            j = bisect.bisect_right(keys, t_in)
            after = sy[j] if j < len(sy) else None           # input time > t_in
            checked += 1
            if (before and before[2] != loc and t_out < before[1]) or (after and after[2] != loc and t_out > after[1]):
                wrong += 1
    return sum(len(v) for v in syncs.values()), checked, wrong


def errors(times, truth):
    """|time - fit(truth)| after one least-squares affine map over all events"""
    n = len(times)
    mt, mx = sum(truth) / n, sum(times) / n
    sxx = sum((x - mt) ** 2 for x in truth)
    b = sum((x - mt) * (y - mx) for x, y in zip(truth, times)) / sxx if sxx else 1.0
    return [abs(y - (mx + b * (x - mt))) for x, y in zip(truth, times)]


def main():
    fix_intercomm_fields()
    src, out = sys.argv[1], sys.argv[2]
    skew = json.load(open(sys.argv[3])) if len(sys.argv) > 3 and sys.argv[3] != '--worst' else None
    a_ev, mpi, rank_of, comms, group_of, _, res = read(src)
    b_ev, _, _, _, _, b_offsets, _ = read(out)
    same = sorted(a_ev) == sorted(b_ev) and all(len(a_ev[k]) == len(b_ev[k]) and all(
        x[0] == y[0] for x, y in zip(a_ev[k], b_ev[k])) for k in a_ev)
    report(same, "every location has the input's events, in order, of the same kinds (%d locations, %d events)"
           % (len(a_ev), sum(len(v) for v in a_ev.values())))
    mono = all(all(evs[i][1] <= evs[i + 1][1] for i in range(len(evs) - 1)) for evs in b_ev.values())
    report(mono, "no location's times decrease in the copy")
    report(b_offsets == 0, "the copy has no ClockOffset (%d)" % b_offsets)
    matched, back, worst = tachyons(b_ev, mpi, rank_of, comms)
    report(matched > 0 and back == 0, "no message goes backwards in the copy (%d matched, %d backwards, worst %d ticks)"
           % (matched, back, worst))
    nsync, checked, wrong = thread_order(a_ev, b_ev, group_of)
    report(wrong == 0, "threads in order against their process's %d forks, joins and team events (%d events "
           "checked, %d on the wrong side)" % (nsync, checked, wrong))
    in_matched, in_back, in_worst = tachyons(a_ev, mpi, rank_of, comms)
    figures = {"messages": matched, "backwards": back, "input_backwards": in_back,
               "input_backwards_worst_ns": in_worst * 1e9 / res}
    if skew and same:
        go = skew["clock_properties"]["global_offset"]
        ranks = {r["rank"]: r["interp_to_true"] for r in skew["ranks"]}
        ours, interp, truth, names = [], [], [], []
        for loc, evs in a_ev.items():
            # the rank of a location: its process's, as skew.json numbers them
            r = next((rr["rank"] for rr in skew["ranks"] if any(l["ref"] == loc for l in rr["locations"])), None)
            if r is None or not ranks[r].get("valid", True):
                continue
            m = ranks[r]
            for (_, t_in, _), (kind_out, t_out, _) in zip(evs, b_ev[loc]):
                truth.append(m["a_ns"] + m["b"] * (t_in - go) * 1e9 / res)
                interp.append(t_in * 1e9 / res)
                ours.append(t_out * 1e9 / res)
                names.append((loc, kind_out))
        eo, ei = errors(ours, truth), errors(interp, truth)
        if "--worst" in sys.argv:
            for i in sorted(range(len(eo)), key=lambda i: -eo[i])[:8]:
                print("# worst", i, eo[i], ei[i], names[i])
        figures.update(ours_max_ns=max(eo), ours_median_ns=statistics.median(eo),
                       interpolated_max_ns=max(ei), interpolated_median_ns=statistics.median(ei), events=len(truth))
        tick = 1e9 / res   # both are whole ticks: one of rounding
        report(max(eo) <= max(ei) + tick, "max error against the true time %.0f ns, interpolated ClockOffsets %.0f ns"
               " (ours may be one tick, %.0f ns, worse: rounding)" % (max(eo), max(ei), tick))
        report(statistics.median(eo) <= statistics.median(ei) + 20,
               "median error %.0f ns, interpolated ClockOffsets %.0f ns (ours may be 20 ns worse: one clock read)"
               % (statistics.median(eo), statistics.median(ei)))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
