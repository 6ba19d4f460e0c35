#!/bin/bash
# bench/merge_scaling.sh [RANKS=1000] [ITERATIONS="50 100 200"] — how the
# merge's peak memory grows with the events at a fixed number of ranks
# (issue 12: it should not). For each ITERATIONS value, synctrace-gen
# writes a stencil2d trace of RANKS ranks (no true times, as a real run
# without SYNCTRACE_SKEW), which is merged with --no-causal and with the
# causal index (the default), each under GNU time for its peak RSS.
# Prints one JSON object: per point the events, peak RSS (MB), bytes per
# event, seconds and what the match's sorts spilled; and the growth of
# peak RSS per million events between the smallest and the largest point
# (0 would be flat), without and with the index.
# Needs BUILD (the build directory; default: the directory above this
# script); MERGE_OPTIONS adds options to every merge (e.g. --sort-memory 16).
set -euo pipefail
ranks=${1:-1000}
iters=${2:-50 100 200}
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points=()
for it in $iters; do
    "$build/synctrace-gen" "$tmp/raw" --ranks "$ranks" --iterations "$it" --no-true-time >/dev/null
    for causal in no yes; do
        opt=--no-causal
        [ $causal = yes ] && opt=
        rm -rf "$tmp/out"
        # shellcheck disable=SC2086
        /usr/bin/time -f '%M %e' -o "$tmp/time" "$build/synctrace" merge "$tmp/raw" -o "$tmp/out" $opt \
            ${MERGE_OPTIONS:-} >/dev/null
        read -r kb sec <"$tmp/time"
        facts=$(python3 -c "import json; d=json.load(open('$tmp/out/report.json')); \
print(d['events'], d.get('match_sorts', {}).get('spilled_bytes', 0))")
        points+=("$it:$causal:$kb:$sec:${facts// /:}")
    done
    rm -rf "$tmp/raw"
done
python3 - "$ranks" "${points[@]}" <<'PY'
import json, sys
ranks = int(sys.argv[1])
out = {"bench": "merge_scaling", "ranks": ranks, "points": []}
by = {"no": [], "yes": []}
for p in sys.argv[2:]:
    it, causal, kb, sec, events, spilled = p.split(':')
    pt = {"iterations": int(it), "causal_index": causal == "yes", "events": int(events),
          "peak_rss_mb": int(kb) / 1024, "bytes_per_event": int(kb) * 1024 / int(events),
          "seconds": float(sec), "match_spilled_mb": int(spilled) / 2**20}
    out["points"].append(pt)
    by[causal].append(pt)
for causal, key in (("no", "rss_growth_mb_per_million_events"), ("yes", "rss_growth_mb_per_million_events_with_index")):
    pts = sorted(by[causal], key=lambda p: p["events"])
    if len(pts) >= 2 and pts[-1]["events"] > pts[0]["events"]:
        out[key] = (pts[-1]["peak_rss_mb"] - pts[0]["peak_rss_mb"]) / ((pts[-1]["events"] - pts[0]["events"]) / 1e6)
print(json.dumps(out))
PY
