#!/bin/bash
# bench/export.sh [OUT_DIR] [ALTERNATIONS=5] — export throughput (events/s)
# of `synctrace export --format chrome` and `--format html` against a plain
# read of the same merged archive with the same streaming reader
# (bench/otf2read), alternated in one run; medians of the per-alternation
# figures, the ratios export/read, the outputs' sizes and the peak memory
# (max RSS) of each. Without OUT_DIR, a large generated trace is merged
# first (synctrace-gen, 8 ranks, stencil2d, 8000 iterations: 2.2 million
# events). Prints one JSON object.
# Needs BUILD (the build directory; default: the directory above this
# script) with `make bench-programs` done.
set -euo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
alts=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${1:-}
if [ -z "$out" ]; then
    "$build/synctrace-gen" "$tmp/raw" --ranks 8 --pattern stencil2d --iterations 8000 --seed 1 >/dev/null
    "$build/synctrace" merge "$tmp/raw" -o "$tmp/out" >/dev/null
    out=$tmp/out
fi
read_s=() chrome_s=() html_s=()
rss() { tail -1 "$1"; }
for ((i = 0; i < alts; i++)); do
    t0=$EPOCHREALTIME; /usr/bin/time -f %M -o "$tmp/read.rss" "$build/bench/otf2read" "$out" >"$tmp/events"
    t1=$EPOCHREALTIME; /usr/bin/time -f %M -o "$tmp/chrome.rss" "$build/synctrace" export "$out" --format chrome -o "$tmp/trace.json" 2>/dev/null
    t2=$EPOCHREALTIME; /usr/bin/time -f %M -o "$tmp/html.rss" "$build/synctrace" export "$out" --format html -o "$tmp/timeline.html" 2>/dev/null
    t3=$EPOCHREALTIME
    read_s+=("$t0:$t1") chrome_s+=("$t1:$t2") html_s+=("$t2:$t3")
done
python3 - "$(cat "$tmp/events")" "${read_s[*]}" "${chrome_s[*]}" "${html_s[*]}" \
    "$(stat -c %s "$tmp/trace.json")" "$(stat -c %s "$tmp/timeline.html")" \
    "$(rss "$tmp/read.rss")" "$(rss "$tmp/chrome.rss")" "$(rss "$tmp/html.rss")" <<'PY'
import json, statistics, sys
events = int(sys.argv[1])
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
r, c, h = ([span(x) for x in sys.argv[k].split()] for k in (2, 3, 4))
med = statistics.median
print(json.dumps({"bench": "export", "events": events, "alternations": len(r),
                  "read_events_per_s": events / med(r), "chrome_events_per_s": events / med(c),
                  "html_events_per_s": events / med(h),
                  "ratio_chrome_to_read_median": med([a / b for a, b in zip(c, r)]),
                  "ratio_html_to_read_median": med([a / b for a, b in zip(h, r)]),
                  "chrome_bytes": int(sys.argv[5]), "html_bytes": int(sys.argv[6]),
                  "html_bytes_bound": 12 * 1024 * 1024,
                  "max_rss_kb": {"read": int(sys.argv[7]), "chrome": int(sys.argv[8]), "html": int(sys.argv[9])},
                  "read_seconds": r, "chrome_seconds": c, "html_seconds": h}))
PY
