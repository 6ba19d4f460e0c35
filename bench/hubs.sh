#!/bin/bash
# bench/hubs.sh [RANKS=256] [ITERATIONS="1000 2000 4000"] — the merge of
# traces of many collectives over many clocks (synctrace-gen all-to-alls,
# each rank its own clock: a hub of 2 x RANKS edges per instance), with the
# groups beside the constraint graph (the default beyond 2^18 hub edges,
# tools/clock/hubstore.h) against every hub in the graph
# (SYNCTRACE_HUB_EDGES=huge: the merge before 2026-11-28), alternated per
# trace in one run, with --event-memory 0 --no-causal so that the solver's
# memory shows. Prints one JSON object: per trace, seconds and peak RSS of
# each, their ratios, the passes the checks took, and whether the outputs
# were the same (bench/merge_same.sh's comparison, without the index).
# Needs BUILD (default: the directory above this script).
set -euo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
ranks=${1:-256}
iters=${2:-"1000 2000 4000"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {   # run OUT [ENV...]: seconds and max RSS (KB) on stdout
    local out=$1 t0 t1
    shift
    t0=$EPOCHREALTIME
    env "$@" /usr/bin/time -f %M -o "$tmp/rss" "$build/synctrace" merge "$tmp/raw" -o "$out" --event-memory 0 \
        --no-causal >/dev/null 2>&1
    t1=$EPOCHREALTIME
    echo "$t0 $t1 $(tail -1 "$tmp/rss")" | awk '{ printf "%.3f %d\n", $2 - $1, $3 }'
}
strip() { sed -E 's/"seconds": (\{[^}]*\}|[0-9.e+-]+)/"seconds": _/g; /"hubs_beside_graph"/d' "$1"; }
rows=()
for n in $iters; do
    rm -rf "$tmp/raw"
    "$build/synctrace-gen" "$tmp/raw" --ranks "$ranks" --pattern alltoall --iterations "$n" --no-true-time --seed 4 \
        >/dev/null
    rm -rf "$tmp/a" "$tmp/b"
    read -r ta ra < <(run "$tmp/a")
    read -r tb rb < <(run "$tmp/b" SYNCTRACE_HUB_EDGES=18446744073709551615)
    same=true
    for f in $(cd "$tmp/a" && ls traces) ; do cmp -s "$tmp/a/traces/$f" "$tmp/b/traces/$f" || same=false; done
    cmp -s <(strip "$tmp/a/report.json") <(strip "$tmp/b/report.json") || same=false
    passes=$(grep -o '"passes": [0-9]*' "$tmp/a/report.json" | cut -d' ' -f2)
    rows+=("{\"instances\": $n, \"beside\": {\"seconds\": $ta, \"max_rss_mb\": $((ra / 1024))}, \"in_graph\": {\"seconds\": $tb, \"max_rss_mb\": $((rb / 1024))}, \"ratio_time\": $(awk "BEGIN { printf \"%.3f\", $ta / $tb }"), \"ratio_rss\": $(awk "BEGIN { printf \"%.3f\", $ra / $rb }"), \"passes\": ${passes:-0}, \"same_output\": $same}")
done
(IFS=,; echo "{\"bench\": \"hubs\", \"ranks\": $ranks, \"runs\": [${rows[*]}]}")
