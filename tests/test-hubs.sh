#!/bin/bash
# Collectives' hubs kept beside the constraint graph (tools/clock/hubstore.h):
# beyond SYNCTRACE_HUB_EDGES hub edges (default 2^18) the groups stay out
# of the graph and the solve is checked against them pass after pass.
#   - the reference is the graph with every hub in it: the same trace
#     merged both ways (SYNCTRACE_HUB_EDGES=0 forces the groups out) gives
#     the same archive and report, byte for byte, with drift, without,
#     with segments (negative cycles through collectives: delta > 0), with
#     a minimum latency, sampled precision and every event set aside;
#   - a negative cycle through collectives only (one sync round, drift
#     left uncorrected): pair vertices join the graph for Howard's delta;
#     the same delta and tachyons, the truth errors within 0.1 ns (labels
#     on the cycle's ties are shortest paths within the solver's tolerance,
#     found in another order);
#   - memory: 256 ranks of all-to-alls, 1000 and then 4000 instances, grow
#     the merge's peak RSS by at most 12 MB (the hubs in the graph: 58 MB);
#   - hubs that cannot be set aside (a file-size limit): one line naming
#     the directory, exit 1, no output.
. "$top_srcdir/tests/lib.sh"
plan 11
GEN="$top_builddir/synctrace-gen"
: "${PYTHON3:=python3}"
ST="$SYNCTRACE_BIN"
tmp=$(scratch)

# same_merge LABEL RAW OPTIONS...: merged with every hub in the graph and
# with the groups beside it; the same archive and report (but the line that
# says how the solver kept them).
same_merge() {
    local label=$1 raw=$2 f bad=""
    shift 2
    rm -rf "$tmp/in" "$tmp/out"
    "$ST" merge "$raw" -o "$tmp/in" --no-causal "$@" >/dev/null 2>"$tmp/in.err" &&
        SYNCTRACE_HUB_EDGES=0 "$ST" merge "$raw" -o "$tmp/out" --no-causal "$@" >/dev/null 2>"$tmp/out.err"
    if [ $? != 0 ]; then
        ok 1 "$label: both merges succeed ($(head -c 300 "$tmp/in.err" "$tmp/out.err"))"
        return
    fi
    for f in traces.def $(cd "$tmp/in" && ls traces); do
        [ "$f" = traces.def ] || f=traces/$f
        cmp -s "$tmp/in/$f" "$tmp/out/$f" || bad="$bad $f"
    done
    strip() { sed -E 's/"seconds": (\{[^}]*\}|[0-9.e+-]+)/"seconds": _/g; /"hubs_beside_graph"/d' "$1"; }
    cmp -s <(strip "$tmp/in/report.json") <(strip "$tmp/out/report.json") || bad="$bad report.json"
    local beside
    beside=$(grep -o '"hubs_beside_graph": {[^}]*}' "$tmp/out/report.json")
    [ -z "$bad" ] && [ -n "$beside" ] && ! grep -q hubs_beside_graph "$tmp/in/report.json"
    ok $? "$label: the same archive and report with the groups beside the graph${bad:+ (differ:$bad)} ($beside, delta $(grep -o '"delta_ns": [0-9.]*' "$tmp/in/report.json" | cut -d' ' -f2))"
}

# 32 ranks of all-to-alls on drifting clocks (each its own: 32 x 32 groups,
# hubs), and 16 ranks of them without true times.
"$GEN" "$tmp/d32" --ranks 32 --pattern alltoall --iterations 200 --drift-ppm 200 --drift-slope 50 --compute-us 100 \
    --seed 3 >/dev/null &&
    "$GEN" "$tmp/a16" --ranks 16 --pattern alltoall --iterations 100 --sync-rounds 5 --no-true-time --seed 7 >/dev/null
ok $? "generated: 32 and 16 ranks of all-to-alls"
same_merge "32 ranks, defaults" "$tmp/d32"
same_merge "32 ranks, --no-drift (delta > 0)" "$tmp/d32" --no-drift
same_merge "32 ranks, --drift-model line" "$tmp/d32" --drift-model line
same_merge "32 ranks, --drift-model segments" "$tmp/d32" --drift-model segments
same_merge "32 ranks, --min-latency 3000, --precision-sources 5" "$tmp/d32" --min-latency 3000 --precision-sources 5
same_merge "16 ranks, five sync rounds, every event set aside" "$tmp/a16" --event-memory 0
same_merge "16 ranks, --timebase median, --alpha 0.2" "$tmp/a16" --timebase median --alpha 0.2

"$GEN" "$tmp/c24" --ranks 24 --pattern alltoall --iterations 200 --drift-ppm 300 --sync-rounds 1 --compute-us 200 \
    --seed 11 >/dev/null &&
    "$ST" merge "$tmp/c24" -o "$tmp/c.in" --no-causal --no-drift >/dev/null 2>&1 &&
    SYNCTRACE_HUB_EDGES=0 "$ST" merge "$tmp/c24" -o "$tmp/c.out" --no-causal --no-drift >/dev/null 2>&1 &&
    "$PYTHON3" - "$tmp/c.in/report.json" "$tmp/c.out/report.json" >"$tmp/c.check" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pairs = b["hubs_beside_graph"]["pair_vertices"]
print("delta %.3f / %.3f, pair vertices %d, error_max %.3f / %.3f ns" % (a["delta_ns"], b["delta_ns"], pairs,
      a["truth"]["error_max_ns"], b["truth"]["error_max_ns"]))
ok = (a["delta_ns"] > 0 and abs(a["delta_ns"] - b["delta_ns"]) < 1e-3 and pairs > 0
      and a["tachyons_after"] == b["tachyons_after"] == 0
      and abs(a["truth"]["error_max_ns"] - b["truth"]["error_max_ns"]) < 0.1
      and abs(a["truth"]["error_median_ns"] - b["truth"]["error_median_ns"]) < 0.1)
sys.exit(0 if ok else 1)
PY
ok $? "a negative cycle through collectives: $(head -1 "$tmp/c.check")"

# Memory: the groups (512 edges an instance) stay out of the graph.
"$GEN" "$tmp/w1" --ranks 256 --pattern alltoall --iterations 1000 --no-true-time --seed 4 >/dev/null &&
    "$GEN" "$tmp/w4" --ranks 256 --pattern alltoall --iterations 4000 --no-true-time --seed 4 >/dev/null
rss() {
    rm -rf "$tmp/w.out"
    /usr/bin/time -f '%M' -o "$tmp/time" "$ST" merge "$1" -o "$tmp/w.out" --no-causal --event-memory 0 \
        >/dev/null 2>"$tmp/w.err" && tail -1 "$tmp/time"
}
r1=$(rss "$tmp/w1") r4=$(rss "$tmp/w4")
[ -n "$r1" ] && [ -n "$r4" ] && [ $((r4 - r1)) -le 12288 ] && grep -q '"groups": 4000' "$tmp/w.out/report.json"
ok $? "256 ranks, 1000 -> 4000 all-to-alls: peak RSS $((${r1:-0} / 1024)) -> $((${r4:-0} / 1024)) MB (at most 12 MB more)"

# The store beyond its memory goes to a file in the spill directory; one
# that cannot be written fails the merge cleanly.
spill=$(scratch)
(ulimit -f 4096; exec "$ST" merge "$tmp/w4" -o "$tmp/full" --no-causal --event-memory 4000 --sort-memory 4000 \
    --spill-dir "$spill") >/dev/null 2>"$tmp/full.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] &&
    grep -q "hubs set aside in $spill: write: File too large" "$tmp/full.err" && [ ! -e "$tmp/full" ] &&
    [ "$(ls -A "$spill" | wc -l)" = 0 ]
ok $? "hubs over the file-size limit: exit $rc, one line: $(head -1 "$tmp/full.err")"
finish
