#!/bin/bash
# bench/merge.sh RAW_DIR [ALTERNATIONS=5] — merge throughput against a plain
# read-and-rewrite of the same trace (bench/otf2copy: same reader, same
# writer, no synchronisation), alternated in one run; medians of the
# per-alternation figures. Prints one JSON object.
# Needs BUILD (the build directory; default: the directory above this script).
set -euo pipefail
raw=${1:?usage: bench/merge.sh RAW_DIR [ALTERNATIONS]}
alts=${2:-5}
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
merge_s=() copy_s=()
for ((i = 0; i < alts; i++)); do
    t0=$EPOCHREALTIME; "$build/synctrace" merge "$raw" -o "$tmp/m" --force >/dev/null; t1=$EPOCHREALTIME
    rm -rf "$tmp/c"; "$build/bench/otf2copy" "$raw" "$tmp/c"; t2=$EPOCHREALTIME
    merge_s+=("$t0:$t1") copy_s+=("$t1:$t2")
done
events=$(python3 -c "import json; print(json.load(open('$tmp/m/report.json'))['events'])")
ranks=$(python3 -c "import json; print(json.load(open('$tmp/m/report.json'))['ranks'])")
python3 - "$events" "$ranks" "${merge_s[*]}" "${copy_s[*]}" <<'PY'
import json, statistics, sys
events, ranks = int(sys.argv[1]), int(sys.argv[2])
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
m = [span(x) for x in sys.argv[3].split()]
c = [span(x) for x in sys.argv[4].split()]
print(json.dumps({"bench": "merge", "ranks": ranks, "events": events, "alternations": len(m),
                  "merge_seconds_median": statistics.median(m), "copy_seconds_median": statistics.median(c),
                  "merge_events_per_s": events / statistics.median(m),
                  "copy_events_per_s": events / statistics.median(c),
                  "ratio_merge_to_copy_median": statistics.median([a / b for a, b in zip(m, c)]),
                  "merge_seconds": m, "copy_seconds": c}))
PY
