#!/bin/bash
# test-extrapolation.sh — a short run's clocks beyond their sync rounds.
# The rounds at the end of MPI_Init and in MPI_Finalize are milliseconds
# apart in a short run, so the drift they give is uncertain, and MPI_Init's
# Enter lies 0.3 s before the first one. OTF2's readers extrapolate the
# first ClockOffsets' slope there (otf2_evt_reader_apply_clock_correction);
# the merge extrapolates its drift too (holding the offset erred by the
# whole drift: bench/RESULTS.md) and says how far that may be off.
# bench/shapes.c's "bcast" (500 broadcasts, no point-to-point message),
# 4 ranks, three skew seeds:
#   - report.json: every clock but the reference has its drift extrapolated
#     beyond its rounds, with the bound the drift's error leaves there;
#   - the archives: MPI_Init's Enter is as far from the next event as its
#     local distance at the clock's drift, recomputed from the raw trace
#     (synctrace dump) and the merged one (otf2-print);
#   - each clock's sync rounds and its longest span without one, as the
#     raw trace has them (report.json);
#   - the error against true time: max at most interpolation's plus the
#     widest pair interval (the offsets at the first round may differ from
#     the ClockOffsets' within it), or, where a clock's drift was rejected
#     as unphysical (not extrapolated, as interpolation does), within the
#     report's own bound beyond the rounds plus that interval; and the
#     report names the event it lies at, before the first round.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
seeds="1 2 3"
plan 21
tmp=$(scratch)
build_shapes "$tmp" 21
for seed in $seeds; do
    raw=$tmp/raw$seed out=$tmp/out$seed
    SYNCTRACE_SKEW="seed=$seed,offset_us=1000,drift_ppm=50" run_traced "$raw" 4 "$tmp/shapes" bcast >"$raw.out" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$raw" -o "$out" >"$out.txt" 2>&1
    ok $? "seed $seed: traced and merged"
    "$SYNCTRACE_BIN" dump "$raw" >"$raw.dump" 2>/dev/null
    otf2-print "$out/traces.otf2" >"$out.print" 2>/dev/null
    "$PYTHON3" - "$out/report.json" "$raw.dump" "$out.print" >"$out.check" 2>&1 <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
ref = min(d["domain"] for d in r["domains"] if d["outside_rounds"]["extrapolation"] == "reference")
others = [d for d in r["domains"] if d["domain"] != ref]
far = lambda d: max(d["outside_rounds"]["before_ns"], d["outside_rounds"]["after_ns"])
drift = [d for d in others if d["outside_rounds"]["extrapolation"] == "drift"
         and d["outside_rounds"]["before_ns"] > 1e8
         and 0 < d["outside_rounds"]["bound_ns"] <= (abs(d["drift_ppm"]) + 200) * 1e-6 * far(d) + 1]
print("%s - every clock but the reference extrapolated beyond its rounds, bound within (|drift| + 200 ppm) x the distance (%d of %d)"
      % ("ok" if len(drift) == len(others) == 3 else "not ok", len(drift), len(others)))
# raw: each rank's first two events, local ticks, and its resolution; merged: the same two events
res, raw = {}, {}
for line in open(sys.argv[2]):
    m = re.match(r"# rank (\d+) world_size \d+ .* resolution (\d+)", line)
    if m:
        res[int(m.group(1))] = int(m.group(2))
    m = re.match(r"(\d+) ([01]) \S+ time=(\d+)", line)
    if m:
        raw.setdefault(int(m.group(1)), []).append(int(m.group(3)))
merged = {}
for line in open(sys.argv[3]):
    m = re.match(r"[A-Z_]+\s+(\d+)\s+(\d+)\s", line)
    if m and len(merged.setdefault(int(m.group(1)), [])) < 2:
        merged[int(m.group(1))].append(int(m.group(2)))
bad = []
for d in others:
    q = d["domain"]
    local = (raw[q][1] - raw[q][0]) / res[q] * 1e9
    glob = merged[q][1] - merged[q][0]
    # the first segment's drift (relative to the reference) over the distance
    ppm = d["segments"][0]["drift_ppm"] if d.get("segments") else d["drift_ppm"]
    if abs(glob - local * (1 + ppm * 1e-6)) > 5 + 1e-8 * local:
        bad.append("rank %d: %.0f ns locally, %d merged, %.3f ppm" % (q, local, glob, ppm))
print("%s - MPI_Init's Enter is its local distance from the next event at the clock's drift on every clock%s"
      % ("not ok" if bad else "ok", (": " + "; ".join(bad)) if bad else ""))
t = r["truth"]
# the farthest event errs as the ClockOffsets' does but for the offset at
# the first round, where ours and the ClockOffset's both lie in the pair's
# interval, and the drift: at most the interval's width apart
width = r["pair_uncertainty_max_ns"]
# a clock whose rounds gave a drift beyond physics extrapolates none, where
# interpolation extrapolates that drift: the two then differ by design
# (a clean-clone run: 34.4 vs 20.7 us; others 13.5 vs 361 us), and ours is
# held to the bound its own report gives there
rejected = [d for d in r["domains"] if d.get("drift_rejected")]
if rejected:
    bound = max(d["outside_rounds"]["bound_ns"] for d in r["domains"]) + width
    print("%s - error max %.0f ns within the report's bound beyond the rounds + the widest pair interval, %.0f ns "
          "(%d clocks' drift rejected; interpolation %.0f ns)"
          % ("ok" if t["error_max_ns"] <= bound else "not ok", t["error_max_ns"], bound, len(rejected),
             t["interpolated_error_max_ns"]))
else:
    print("%s - error max %.0f ns, at most interpolation's %.0f ns + the widest pair interval %.0f ns"
          % ("ok" if t["error_max_ns"] <= t["interpolated_error_max_ns"] + width else "not ok",
             t["error_max_ns"], t["interpolated_error_max_ns"], width))
# the rounds each clock had and its longest span without one, from the raw trace
rounds, first, last = {}, {}, {}
for line in open(sys.argv[2]):
    m = re.match(r"# rank (\d+) clock_offset time=(\d+)", line)
    if m:
        rounds.setdefault(int(m.group(1)), []).append(int(m.group(2)))
    m = re.match(r"(\d+) \d+ \S+ time=(\d+)", line)
    if m:
        q, tk = int(m.group(1)), int(m.group(2))
        first.setdefault(q, tk)
        last[q] = tk
wrong = []
for d in r["domains"]:
    q = d["domain"]
    pts = [first[q]] + rounds.get(q, []) + [last[q]]
    gap = max(b - a for a, b in zip(pts, pts[1:])) / res[q] * 1e9
    if d["sync_rounds"] != len(rounds.get(q, [])) or abs(d["longest_without_round_ns"] - gap) > 1000:
        wrong.append("rank %d: %d rounds, %.0f ns (raw: %d, %.0f)" % (q, d["sync_rounds"], d["longest_without_round_ns"],
                                                                     len(rounds.get(q, [])), gap))
print("%s - each clock's sync rounds and its longest span without one as the raw trace has them%s"
      % ("not ok" if wrong else "ok", (": " + "; ".join(wrong)) if wrong else ""))
# beyond the rounds: mostly MPI_Init's Enter 0.3 s before the first; with
# a drift held at 0 (rejected) at times MPI_Finalize's end after the last
# (a clean-clone run: 12 ms after)
o = t["error_max_outside_rounds_ns"]
print("%s - the report names where it lies: event %s, %.0f ms %s"
      % ("ok" if re.fullmatch(r"\d+:\d+", t["error_max_at"]) and (o < -1e8 or (o > 0 and rejected)) else "not ok",
         t["error_max_at"], abs(o) / 1e6, "before the first round" if o < 0 else "after the last round"))
EOF
    tap_from_checker "seed $seed: " "$out.check"
done
grep -q "^  outside sync  rank [0-9]*: events up to .* before its sync rounds, where its drift is extrapolated: within +-.* there$" \
    "$tmp/out1.txt"
ok $? "the merge's summary says where the drift is extrapolated, and how far it may be off: $(grep 'outside sync' "$tmp/out1.txt" | sed 's/^ *//')"
# "interpolated ClockOffsets" is what an OTF2 reader shows: otf2-print of
# each raw rank archive (its ClockOffsets applied by OTF2 itself) against
# the formula the checkers use (tests/checkers/rawview_check.py), event for
# event, MPI_Init's Enter before the first round included
for q in 0 1 2 3; do otf2-print "$tmp/raw1/rank-00000$q.otf2" 2>/dev/null; done >"$tmp/raw1.print"
"$PYTHON3" - "$tmp/raw1.dump" "$tmp/raw1.print" "$top_srcdir/tests/checkers" >"$tmp/otf2rule" 2>&1 <<'EOF'
import re, sys
sys.path.insert(0, sys.argv[3])
from rawview_check import interpolated
offsets, raw = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"# rank (\d+) clock_offset time=(\d+) offset=(-?\d+)", line)
    if m:
        offsets.setdefault(int(m.group(1)), []).append((int(m.group(2)), int(m.group(3))))
    m = re.match(r"(\d+) \d+ \S+ time=(\d+)", line)
    if m:
        raw.setdefault(int(m.group(1)), []).append(int(m.group(2)))
read = {}
for line in open(sys.argv[2]):
    m = re.match(r"[A-Z_]+\s+(\d+)\s+(\d+)\s", line)
    if m:
        read.setdefault(int(m.group(1)), []).append(int(m.group(2)))
n = bad = 0
for q, ts in raw.items():
    for t, shown in zip(ts, read.get(q, [])):
        n += 1
        bad += round(interpolated(t, offsets[q], 1e9)) != shown   # resolution 1e9: in ticks
print("%d %d %d" % (n, bad, sum(len(v) for v in read.values())))
EOF
read -r n bad shown <"$tmp/otf2rule"
[ "${n:-0}" -gt 1000 ] && [ "$bad" = 0 ] && [ "$n" = "$shown" ]
ok $? "interpolated ClockOffsets as otf2-print shows the raw archives: ${bad:-?} of ${n:-?} events differ ($(head -c 200 "$tmp/otf2rule"))"
[ "$(cat "$tmp"/out*.check | grep -c '^\(not \)\?ok - ')" -eq 15 ]
ok $? "every check ran ($(cat "$tmp"/out*.check | grep -c '^\(not \)\?ok - ') of 15 lines)"
finish
