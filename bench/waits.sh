#!/bin/bash
# bench/waits.sh [OUT_DIR] [ALTERNATIONS=5] — `synctrace waits --json`
# against a plain read of the same merged archive (bench/otf2read, the
# streaming reader every tool uses), alternated in one run: medians of the
# per-alternation times, the ratio waits/read (the issue asks <= 1.5), the
# time per million events, and the peak memory (max RSS) of each. Without
# OUT_DIR, a large generated trace is merged first (synctrace-gen, 8 ranks,
# stencil2d, 8000 iterations: 2.2 million events). Prints one JSON object.
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
read_s=() waits_s=()
for ((i = 0; i < alts; i++)); do
    t0=$EPOCHREALTIME; /usr/bin/time -f %M -o "$tmp/read.rss" "$build/bench/otf2read" "$out" >"$tmp/events"
    t1=$EPOCHREALTIME; /usr/bin/time -f %M -o "$tmp/waits.rss" "$build/synctrace" waits "$out" --json >"$tmp/table"
    t2=$EPOCHREALTIME
    read_s+=("$t0:$t1") waits_s+=("$t1:$t2")
done
python3 - "$(cat "$tmp/events")" "${read_s[*]}" "${waits_s[*]}" "$(tail -1 "$tmp/read.rss")" \
    "$(tail -1 "$tmp/waits.rss")" "$out/waits.json" <<'PY'
import json, statistics, sys
events = int(sys.argv[1].split()[0])
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
r, w = ([span(x) for x in sys.argv[k].split()] for k in (2, 3))
med = statistics.median
waits = json.load(open(sys.argv[6]))
print(json.dumps({"bench": "waits", "events": events, "alternations": len(r),
                  "read_events_per_s": events / med(r), "waits_events_per_s": events / med(w),
                  "ratio_waits_to_read_median": med([a / b for a, b in zip(w, r)]),
                  "waits_seconds_per_million_events": med(w) / events * 1e6,
                  "read_seconds_per_million_events": med(r) / events * 1e6,
                  "max_rss_kb": {"read": int(sys.argv[4]), "waits": int(sys.argv[5])},
                  "wait_rows": len(waits["waits"]),
                  "read_seconds": r, "waits_seconds": w}))
PY
