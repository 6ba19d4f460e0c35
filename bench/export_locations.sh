#!/bin/bash
# bench/export_locations.sh [OUT_DIR] [ALTERNATIONS=3] — `synctrace export`
# of a trace of many locations: its time and peak memory (max RSS) by
# default (beyond 256 locations the events are put in time order through a
# file, format/mtorder.c) against every location read at once
# (--memory 1000000: one OTF2 reader of 256 KiB per location, what OTF2's
# global reader held), alternated in one run; with BASELINE (another
# synctrace binary, e.g. an older build) that one too. Medians and the
# per-alternation ratios. Without OUT_DIR a 1000-rank stencil of 200
# iterations (7 million events) is generated and merged first.
# Needs BUILD (the build directory; default: the directory above this
# script). Prints one JSON object.
set -euo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
alts=${2:-3}
baseline=${BASELINE:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${1:-}
if [ -z "$out" ]; then
    "$build/synctrace-gen" "$tmp/raw" --ranks 1000 --pattern stencil2d --iterations 200 --no-true-time >/dev/null
    "$build/synctrace" merge "$tmp/raw" -o "$tmp/out" --no-causal >/dev/null 2>&1
    rm -rf "$tmp/raw"
    out=$tmp/out
fi
# run NAME BINARY ARGS...: seconds and max RSS (KB) appended to NAME.s / NAME.kb
run() {
    local name=$1 t0 t1
    shift
    t0=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$tmp/rss" "$@" --format chrome -o "$tmp/trace.json" 2>/dev/null
    t1=$EPOCHREALTIME
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$tmp/$name.s"
    tail -1 "$tmp/rss" >>"$tmp/$name.kb"
    md5sum <"$tmp/trace.json" | cut -d' ' -f1 >>"$tmp/$name.md5"
}
for ((i = 0; i < alts; i++)); do
    run ordered "$build/synctrace" export "$out"
    run all_at_once "$build/synctrace" export "$out" --memory 1000000
    [ -z "$baseline" ] || run baseline "$baseline" export "$out"
done
python3 - "$tmp" "$(ls "$out/traces" | grep -c '\.evt$')" "$baseline" <<'PY'
import json, statistics, sys, os
tmp, nloc, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def col(name, ext, cast=float):
    p = os.path.join(tmp, name + ext)
    return [cast(x) for x in open(p).read().split()] if os.path.exists(p) else []
med = statistics.median
names = ["ordered", "all_at_once"] + (["baseline"] if baseline else [])
s = {n: col(n, ".s") for n in names}
kb = {n: col(n, ".kb", int) for n in names}
md5 = {n: col(n, ".md5", str) for n in names}
res = {"bench": "export_locations", "locations": nloc, "alternations": len(s["ordered"]),
       "seconds_median": {n: med(s[n]) for n in names},
       "max_rss_mb_median": {n: med(kb[n]) / 1024 for n in names},
       "ratio_time_ordered_to_all_at_once": med([a / b for a, b in zip(s["ordered"], s["all_at_once"])]),
       "ratio_rss_ordered_to_all_at_once": med([a / b for a, b in zip(kb["ordered"], kb["all_at_once"])]),
       "same_output": len({x for n in names for x in md5[n]}) == 1}
if baseline:
    res["ratio_time_ordered_to_baseline"] = med([a / b for a, b in zip(s["ordered"], s["baseline"])])
    res["ratio_rss_ordered_to_baseline"] = med([a / b for a, b in zip(kb["ordered"], kb["baseline"])])
print(json.dumps(res))
PY
