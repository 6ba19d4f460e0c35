#!/usr/bin/env bash
# polling.sh — what collapsing polling loops saves (src/polling.h).
#
#   bench/polling.sh LIB SYNCTRACE [ALTERNATIONS]
#
#   LIB           path to libsynctrace.so
#   SYNCTRACE     path to the synctrace command (for dump and merge)
#   ALTERNATIONS  rounds of collapse-on/collapse-off pairs, default 3
#
# bench/polling.c (2 ranks) waits by polling: rank 0 polls an MPI_Test
# while rank 1 computes for DELAY_US, ROUNDS times. Each alternation runs it
# traced with SYNCTRACE_POLL_COLLAPSE=1 and then =0, and for each trace
# counts its events (synctrace dump --events), its bytes on disk, merges it
# (wall time of synctrace merge) and measures the merged archive's bytes.
# The number of MPI_Test calls depends on timing, so every figure is also
# given per call; the ratios (off / on), per call and per run, are taken
# within one alternation (then their median).
# Environment: ROUNDS (default 100), DELAY_US (2000), MPIRUN, MPIRUN_FLAGS.
# Prints one JSON object on stdout; progress goes to stderr.
set -euo pipefail

usage() {
    echo "usage: $0 LIB SYNCTRACE [ALTERNATIONS]" >&2
    exit 2
}
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
LIB=$1
ST=$2
ALTS=${3:-3}
case $ALTS in '' | *[!0-9]* | 0) echo "$0: ALTERNATIONS must be a positive integer" >&2; exit 2 ;; esac
[ -f "$LIB" ] || { echo "$0: library '$LIB' not found" >&2; exit 2; }
[ -x "$ST" ] || { echo "$0: synctrace command '$ST' not found" >&2; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
ROUNDS=${ROUNDS:-100}
DELAY_US=${DELAY_US:-2000}
MPIRUN=${MPIRUN:-mpirun}
read -r -a MPIRUN_EXTRA <<<"${MPIRUN_FLAGS:-}"
PYTHON=${PYTHON:-python3}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-polling.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
BIN=$WORK/polling
mpicc -std=c11 -O2 "$(cd "$(dirname "$0")" && pwd)/polling.c" -o "$BIN"

bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s }'; }

RESULTS=$WORK/results.tsv   # alt collapse calls events bytes merge_s merged_bytes
: >"$RESULTS"
for alt in $(seq "$ALTS"); do
    for collapse in 1 0; do
        dir=$WORK/raw.$alt.$collapse
        if ! "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 "${MPIRUN_EXTRA[@]}" -x "LD_PRELOAD=$LIB" \
            -x "SYNCTRACE_DIR=$dir" -x "SYNCTRACE_POLL_COLLAPSE=$collapse" "$BIN" "$ROUNDS" "$DELAY_US" \
            >"$WORK/out" 2>"$WORK/err"; then
            echo "$0: the traced run failed:" >&2
            cat "$WORK/err" >&2
            exit 1
        fi
        calls=$(sed -n 's/^polling .*calls=\([0-9]*\).*/\1/p' "$WORK/out")
        [ -n "$calls" ] || { echo "$0: no call count in the program's output" >&2; exit 1; }
        events=$("$ST" dump --events "$dir" | wc -l)
        raw_bytes=$(bytes "$dir")
        start=$(date +%s.%N)
        "$ST" merge "$dir" -o "$dir.merged" >/dev/null 2>"$WORK/merge.err" \
            || { echo "$0: merge failed:" >&2; cat "$WORK/merge.err" >&2; exit 1; }
        end=$(date +%s.%N)
        merged_bytes=$(bytes "$dir.merged")
        merge_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$alt" "$collapse" "$calls" "$events" "$raw_bytes" "$merge_s" \
            "$merged_bytes" >>"$RESULTS"
        echo "  alternation $alt collapse=$collapse: $calls MPI_Test calls, $events events, $raw_bytes bytes raw," \
             "merge ${merge_s} s, $merged_bytes bytes merged" >&2
        rm -rf "$dir" "$dir.merged"
    done
done

"$PYTHON" - "$RESULTS" "$ROUNDS" "$DELAY_US" <<'PY'
import json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
runs = {}
for alt, collapse, calls, events, raw, merge_s, merged in rows:
    runs.setdefault(int(alt), {})[collapse] = dict(calls=int(calls), events=int(events), raw_bytes=int(raw),
                                                 merge_s=float(merge_s), merged_bytes=int(merged))
def variant(key):
    vs = [r[key] for r in runs.values()]
    med = lambda f: statistics.median(f(v) for v in vs)
    return {
        "calls_median": med(lambda v: v["calls"]),
        "events_median": med(lambda v: v["events"]),
        "raw_bytes_median": med(lambda v: v["raw_bytes"]),
        "merged_bytes_median": med(lambda v: v["merged_bytes"]),
        "merge_seconds_median": med(lambda v: v["merge_s"]),
        "events_per_call_median": med(lambda v: v["events"] / v["calls"]),
        "raw_bytes_per_call_median": med(lambda v: v["raw_bytes"] / v["calls"]),
        "merge_ns_per_call_median": med(lambda v: v["merge_s"] * 1e9 / v["calls"]),
        "runs": vs,
    }
def ratio_run(key):   # off / on, whole runs, within each alternation
    return statistics.median(r["0"][key] / r["1"][key] for r in runs.values() if r["1"][key] > 0)
def ratio(key):   # off / on, per call, within each alternation
    return statistics.median((r["0"][key] / r["0"]["calls"]) / (r["1"][key] / r["1"]["calls"])
                             for r in runs.values() if r["1"][key] > 0)
out = {"bench": "polling", "alternations": len(runs), "rounds": int(sys.argv[2]), "delay_us": float(sys.argv[3]),
       "collapse_on": variant("1"), "collapse_off": variant("0"),
       "off_over_on_per_call": {"events": ratio("events"), "raw_bytes": ratio("raw_bytes"),
                                "merged_bytes": ratio("merged_bytes"), "merge_seconds": ratio("merge_s")},
       "off_over_on_per_run": {"events": ratio_run("events"), "raw_bytes": ratio_run("raw_bytes"),
                               "merged_bytes": ratio_run("merged_bytes"), "merge_seconds": ratio_run("merge_s")}}
print(json.dumps(out))
PY
