#!/bin/bash
# bench/merge.sh RAW_DIR [ALTERNATIONS=5] — merge throughput against a plain
# read-and-rewrite of the same trace (bench/otf2copy: same reader, same
# writer, no synchronisation), alternated in one run; medians of the
# per-alternation figures. The merge is timed without the causal index
# (--no-causal: the synchronisation itself), and once more with it (the
# default, built alongside the archive), whose extra time is reported apart.
# Prints one JSON object.
# Needs BUILD (the build directory; default: the directory above this script).
set -euo pipefail
raw=${1:?usage: bench/merge.sh RAW_DIR [ALTERNATIONS]}
alts=${2:-5}
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
merge_s=() copy_s=() full_s=()
for ((i = 0; i < alts; i++)); do
    t0=$EPOCHREALTIME; "$build/synctrace" merge "$raw" -o "$tmp/m" --force --no-causal >/dev/null; t1=$EPOCHREALTIME
    rm -rf "$tmp/c"; "$build/bench/otf2copy" "$raw" "$tmp/c"; t2=$EPOCHREALTIME
    "$build/synctrace" merge "$raw" -o "$tmp/f" --force >/dev/null; t3=$EPOCHREALTIME
    merge_s+=("$t0:$t1") copy_s+=("$t1:$t2") full_s+=("$t2:$t3")
done
events=$(python3 -c "import json; print(json.load(open('$tmp/m/report.json'))['events'])")
ranks=$(python3 -c "import json; print(json.load(open('$tmp/m/report.json'))['ranks'])")
python3 - "$events" "$ranks" "${merge_s[*]}" "${copy_s[*]}" "${full_s[*]}" <<'PY'
import json, statistics, sys
events, ranks = int(sys.argv[1]), int(sys.argv[2])
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
m = [span(x) for x in sys.argv[3].split()]
c = [span(x) for x in sys.argv[4].split()]
f = [span(x) for x in sys.argv[5].split()]
print(json.dumps({"bench": "merge", "ranks": ranks, "events": events, "alternations": len(m),
                  "merge_seconds_median": statistics.median(m), "copy_seconds_median": statistics.median(c),
                  "merge_events_per_s": events / statistics.median(m),
                  "copy_events_per_s": events / statistics.median(c),
                  "ratio_merge_to_copy_median": statistics.median([a / b for a, b in zip(m, c)]),
                  "merge_with_causal_index_seconds_median": statistics.median(f),
                  "ratio_with_index_to_without_median": statistics.median([a / b for a, b in zip(f, m)]),
                  "merge_seconds": m, "copy_seconds": c, "merge_with_causal_index_seconds": f}))
PY
