#!/usr/bin/env python3
"""waits_views_check.py OUT [--html PAGE] [--chrome TRACE] [--rows ROWS]:
the wait instances where users look carry waits.json's numbers.
  OUT/waits-instances.bin: per (pattern, rank) the sums of max(0, w), lo,
    hi over the instances equal waits.json's rows summed, and the count of
    w > 0 their count; every instance has a start.
  --html: the page's embedded instances (shaded) sum per (pattern, rank) to
    the same seconds and the page has the waits toggle.
  --chrome: the trace parses as JSON, and its "wait" slices (dur, in us)
    sum per (rank, pattern) to waits.json's seconds.
  --rows: the C reader's rows (tests/checkers/waits_rows) equal Python's
    json parse of waits.json, row for row.
  --calls ARCHIVE: every instance (w > 0) lies inside one MPI call of its
    rank in the merged archive, where the views shade it (python3-otf2);
    given alone, only that is checked.
Prints "ok - ..." / "not ok - ..." lines."""
import json, math, re, struct, sys
from collections import defaultdict

out = sys.argv[1]
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
W = json.load(open(out + "/waits.json"))
names = [t["pattern"] for t in W["totals"]]   # enum order
want = defaultdict(lambda: [0, 0.0, 0.0, 0.0])    # (pattern, rank) -> count, s, lo, hi
for r in W["waits"]:
    w = want[(r["pattern"], r["rank"])]
    w[0] += r["count"]; w[1] += r["seconds"]; w[2] += r["lo"]
    w[3] += r["hi"] if r["hi"] is not None else math.inf

# --calls alone (run by the python3 that has otf2): that check only
only_calls = list(args) == ["--calls"]
in_calls = False

def ok(cond, what):
    if only_calls and not in_calls:
        return
    print(("ok - " if cond else "not ok - ") + what)

def close(a, b, n):
    # waits.json prints seconds with 9 decimals: 1 ns per row
    return a == b or abs(a - b) <= 1e-9 * (n + 2) + 1e-12 * abs(b)

def compare(got, label, fields=(0, 1)):
    bad = []
    for k in set(got) | set(k for k, v in want.items() if v[1] > 0):
        g, w = got.get(k, [0, 0.0, 0.0, 0.0]), want.get(k, [0, 0.0, 0.0, 0.0])
        n = max(w[0], 1)
        if (0 in fields and g[0] != w[0]) or any(not close(g[f], w[f], n) for f in fields if f):
            bad.append((k, g, w))
    ok(not bad and got, "%s: %d (pattern, rank) sums equal waits.json's%s" % (label, len(got), (": %s" % bad[:2]) if bad else ""))

data = open(out + "/waits-instances.bin", "rb").read()
magic, ver, nranks, n, events, mtime, size = struct.unpack_from("<8sIIQQqQ", data)
inst = [struct.unpack_from("<B3xIIIdddd", data, 64 + 48 * k) for k in range(n)]
ok(magic == b"STWAITI1" and len(data) == 64 + 48 * n and events == W["events"],
   "waits-instances.bin: %d instances, header and size agree, %d events as waits.json" % (n, events))
got = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
for p, rank, region, comm, frm, w, lo, hi in inst:
    g = got[(names[p], rank)]
    g[0] += w > 0; g[1] += max(w, 0) * 1e-9; g[2] += max(lo, 0) * 1e-9; g[3] += max(hi, 0) * 1e-9
compare(got, "waits-instances.bin count, seconds, lo, hi", (0, 1, 2, 3))
ok(all(not math.isnan(i[4]) and i[4] >= 0 for i in inst), "every instance starts at a known merged time")

if "--html" in args:
    page = open(args["--html"]).read()
    m = re.search(r'<script id="data" type="application/json">\n(.*?)\n</script>', page, re.S)
    D = json.loads(m.group(1)) if m else {}
    V = D.get("waits") or {}
    I = V.get("instances", [])
    got = defaultdict(lambda: [0, 0.0])
    for k in range(0, len(I), 7):
        t, start, dur, p = I[k:k + 4]
        g = got[(V["patterns"][p], t)]
        g[0] += 1; g[1] += dur * 1e-9
    ok(V.get("shown") == len(I) // 7 == V.get("total"), "html: all %s of %s instances embedded" % (V.get("shown"), V.get("total")))
    compare(got, "html shading: instance count and durations")
    ok('id="waits"' in page and "toggleWaits" in page, "html: the page has the waits toggle")

if "--chrome" in args:
    try:
        T = json.load(open(args["--chrome"]))
        parsed = True
    except ValueError as e:
        T, parsed = {"traceEvents": []}, False
    ok(parsed, "chrome: the trace parses as JSON")
    got = defaultdict(lambda: [0, 0.0])
    for e in T["traceEvents"]:
        if e.get("cat") == "wait":
            g = got[(e["args"]["pattern"], e["pid"])]
            g[0] += 1; g[1] += e["dur"] * 1e-6
            assert e["ph"] == "X" and e["name"] == e["args"]["pattern"]
    compare(got, "chrome wait slices: count and durations")
    lanes = [e for e in T["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name" and e["args"]["name"].startswith("waits")]
    ok(lanes, "chrome: %d waits tracks named" % len(lanes))

if "--rows" in args:
    rows = [json.loads(l) for l in open(args["--rows"]) if l.strip()]
    keys = ("pattern", "rank", "region", "communicator", "count", "count_sure", "count_possible", "seconds", "lo", "hi",
            "possibly_none", "true_seconds", "raw_seconds")
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(rows, W["waits"])) if any(a.get(k) != b.get(k) for k in keys)]
    ok(len(rows) == len(W["waits"]) and not bad,
       "C reader: %d rows, Python's json: %d, equal field by field%s" % (len(rows), len(W["waits"]), (": %s" % bad[:1]) if bad else ""))

if "--calls" in args:
    in_calls = True
    import otf2
    from merged_check import fix_intercomm_fields   # python3-otf2 3.0 cannot read an InterComm without it
    fix_intercomm_fields()
    calls = defaultdict(list)   # rank -> [(enter, leave)] in ns
    with otf2.reader.open(args["--calls"]) as trace:
        world = [g for g in trace.definitions.groups if g.group_type == otf2.GroupType.COMM_LOCATIONS]
        rank_of = {loc._ref: r for r, loc in enumerate(world[0].members)} if world else {}
        res = trace.definitions.clock_properties.timer_resolution
        stacks = defaultdict(list)
        for loc, ev in trace.events:
            if isinstance(ev, otf2.events.Enter):
                stacks[loc._ref].append(ev.time)
            elif isinstance(ev, otf2.events.Leave) and stacks[loc._ref]:
                t0 = stacks[loc._ref].pop()
                if loc._ref in rank_of and ev.region.name.startswith("MPI_"):
                    calls[rank_of[loc._ref]].append((t0 * 1e9 / res, ev.time * 1e9 / res))
    outside = []
    for p, rank, region, comm, frm, w, lo, hi in inst:
        if w > 0 and not any(a - 2 <= frm and frm + w <= b + 2 for a, b in calls[rank]):
            outside.append((names[p], rank, frm, w))
    placed = sum(1 for i in inst if i[5] > 0)
    ok(placed and not outside, "%d instances, each inside an MPI call of its rank%s" % (
        placed, (": %d not, %s" % (len(outside), outside[:2])) if outside else ""))
