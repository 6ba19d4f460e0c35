#!/bin/bash
# bench/causal.sh [RANKS="64 256 1024"] [PATTERNS="stencil2d tree random"] [ITERATIONS=30]
# (RANKS "" with TRACED=RAW_DIR: only the traced run)
# The causal index on generator traces: build rate (events/s), query
# latency (median and 99th percentile, same-cluster and cross-cluster
# pairs, each query timed alone), index size against Fidge/Mattern vectors
# (N 4-byte entries per event), for the default two-level and hierarchical
# configurations (bench/causal_bench); then what the index adds to a merge:
# `synctrace merge` with and without it (--no-causal), alternated in one
# run, medians. Targets: >= 2e6 events/s; median query < 1 us; stencil at
# 256+ ranks: index <= 15% of Fidge/Mattern. Prints one JSON object per line.
# Where the bytes go (causal_bench): bytes_chunk_data and bytes_chunk_table
# (full vectors: chunk bytes, lines of 4-byte chunk codes), bytes_cluster_entries,
# bytes_record_meta, bytes_cluster_maps, bytes_top_vectors_format1 (the same
# full vectors as 4-byte entries, format 1), chunks_zero/u8/u16/u32 and
# key_chunks; bytes_per_event; the build's passes over windows of columns,
# vector_bytes, rss_before_build_kb and build_peak_rss_kb. 4000 or 10,000
# ranks: `bench/causal.sh "4000" stencil2d 10` (CAUSAL_VECTOR_BUDGET_MB and
# CAUSAL_CHUNK_SHIFT set the build's budget and chunk size).
# Needs BUILD (the build directory; default: the directory above this
# script) with `make bench-programs` done. TRACED=RAW_DIR adds a traced run.
set -euo pipefail
ranks_list=${1-"64 256 1024"}
patterns=${2-"stencil2d tree random"}
iters=${3:-30}
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
levels_list=${LEVELS:-"8 16 8,64"}
queries=${QUERIES:-20000}
alts=${ALTERNATIONS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

to_json() {   # key=value ... -> JSON object
    python3 -c '
import json, sys
d = {"bench": "causal"}
for kv in sys.argv[1:]:
    k, v = kv.split("=", 1)
    try: v = int(v)
    except ValueError:
        try: v = float(v)
        except ValueError: pass
    d[k] = v
print(json.dumps(d))' "$@"
}

merge_cost() {   # merge_cost RAW LABEL...: merge with and without the index, alternated
    local raw=$1; shift
    local with=() without=()
    for ((i = 0; i < alts; i++)); do
        t0=$EPOCHREALTIME; "$build/synctrace" merge "$raw" -o "$tmp/m" --force >/dev/null; t1=$EPOCHREALTIME
        "$build/synctrace" merge "$raw" -o "$tmp/n" --force --no-causal >/dev/null; t2=$EPOCHREALTIME
        with+=("$t0:$t1") without+=("$t1:$t2")
    done
    python3 - "$tmp/m/report.json" "${with[*]}" "${without[*]}" "$@" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
w = [span(x) for x in sys.argv[2].split()]
n = [span(x) for x in sys.argv[3].split()]
c = r['causal_index']
d = {"bench": "causal_merge", "ranks": r['ranks'], "events": r['events'],
     "merge_s_median": statistics.median(w), "merge_no_index_s_median": statistics.median(n),
     "added_s_median": statistics.median(w) - statistics.median(n),
     "ratio_with_to_without": statistics.median([a / b for a, b in zip(w, n)]),
     "index_build_s": c['seconds']['build'], "index_write_s": c['seconds']['write'],
     "sweep_s": c['seconds']['sweep'], "entries_per_event": c['entries_per_event'],
     "size_ratio": c['size_ratio'], "file_ratio": c['file_ratio']}
for kv in sys.argv[4:]:
    k, v = kv.split('=', 1); d[k] = v
print(json.dumps(d))
PY
}

for n in $ranks_list; do
    for p in $patterns; do
        raw="$tmp/$p-$n"
        "$build/synctrace-gen" "$raw" --ranks "$n" --pattern "$p" --iterations "$iters" >/dev/null
        for l in $levels_list; do
            to_json pattern="$p" $("$build/bench/causal_bench" "$raw" "$l" "$queries")
        done
        merge_cost "$raw" pattern="$p"
        rm -rf "$raw" "$tmp/m" "$tmp/n"
    done
done
if [ -n "${TRACED:-}" ]; then
    for l in $levels_list; do
        to_json pattern=traced trace="$TRACED" $("$build/bench/causal_bench" "$TRACED" "$l" "$queries")
    done
    merge_cost "$TRACED" pattern=traced
fi
