#!/bin/bash
# bench/causal_rebuild.sh [RANKS="64 256"] [PATTERNS="stencil2d random"] [ITERATIONS=30]
# `synctrace causal OUT` (rebuild the causal index from the merged archive:
# read it back, match, build, write the index, sweep and report) against,
# in the same run and alternated, `synctrace merge` with and without the
# index (--no-causal). The baseline is what a rebuild replaces: merging
# again. Medians of ALTERNATIONS (default 3) runs; one JSON object per line.
# Needs BUILD (the build directory; default: the directory above this script).
set -euo pipefail
ranks_list=${1-"64 256"}
patterns=${2-"stencil2d random"}
iters=${3:-30}
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
alts=${ALTERNATIONS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for ranks in $ranks_list; do
    for p in $patterns; do
        raw="$tmp/raw-$p-$ranks"
        "$build/synctrace-gen" "$raw" --ranks "$ranks" --pattern "$p" --iterations "$iters" >/dev/null
        "$build/synctrace" merge "$raw" -o "$tmp/out" --force --no-causal >/dev/null
        rebuild=() with=() without=()
        for ((i = 0; i < alts; i++)); do
            t0=$EPOCHREALTIME; "$build/synctrace" causal "$tmp/out" --force >/dev/null; t1=$EPOCHREALTIME
            "$build/synctrace" merge "$raw" -o "$tmp/m" --force >/dev/null; t2=$EPOCHREALTIME
            "$build/synctrace" merge "$raw" -o "$tmp/n" --force --no-causal >/dev/null; t3=$EPOCHREALTIME
            rebuild+=("$t0:$t1") with+=("$t1:$t2") without+=("$t2:$t3")
        done
        python3 - "$tmp/out/report.json" "$p" "${rebuild[*]}" "${with[*]}" "${without[*]}" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
c, w, n = ([span(x) for x in sys.argv[k].split()] for k in (3, 4, 5))
ci = r['causal_index']
med = statistics.median
print(json.dumps({"bench": "causal_rebuild", "pattern": sys.argv[2], "ranks": r['ranks'], "events": r['events'],
                  "rebuild_s_median": med(c), "merge_s_median": med(w), "merge_no_index_s_median": med(n),
                  "ratio_rebuild_to_merge": med([a / b for a, b in zip(c, w)]),
                  # what the index adds to a merge; null when noise hides it
                  "ratio_rebuild_to_index_in_merge": med(c) / (med(w) - med(n)) if med(w) > med(n) else None,
                  "index_build_s": ci['seconds']['build'], "index_write_s": ci['seconds']['write'],
                  "sweep_s": ci['seconds']['sweep'], "rebuild_events_per_s": r['events'] / med(c)}))
PY
    done
done
