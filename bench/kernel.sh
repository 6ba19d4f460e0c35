#!/usr/bin/env bash
# kernel.sh — run time of a compute-bound MPI program of our own
# (bench/kernel.c: 2-D Jacobi, halo exchange and residual Allreduce every
# iteration), untraced and traced alternately in one run; the traced run's
# result must be the untraced one's, to the last bit.
#
#   bench/kernel.sh LIB [ALTERNATIONS]
#
#   LIB           path to libsynctrace.so
#   ALTERNATIONS  rounds of plain/traced pairs, default 5
#
# Environment: KERNEL_N (columns and rows per rank, default 256),
# KERNEL_ITERS (default 2000), KERNEL_NP (ranks, default 2), MPIRUN,
# MPIRUN_FLAGS as for overhead.sh.
# Prints one JSON object on stdout: the seconds of each run, the medians,
# the traced/plain ratio of each round and their median, MPI calls per
# second per rank, the trace's events; progress goes to stderr.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 LIB [ALTERNATIONS]" >&2
    exit 2
fi
LIB=$1
ALTS=${2:-5}
case $ALTS in '' | *[!0-9]* | 0) echo "$0: ALTERNATIONS must be a positive integer" >&2; exit 2 ;; esac
[ -f "$LIB" ] || { echo "$0: library '$LIB' not found" >&2; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
N=${KERNEL_N:-256}
ITERS=${KERNEL_ITERS:-2000}
NP=${KERNEL_NP:-2}
case $N$ITERS$NP in *[!0-9]*) echo "$0: KERNEL_N, KERNEL_ITERS and KERNEL_NP must be whole numbers" >&2; exit 2 ;; esac
MPIRUN=${MPIRUN:-mpirun}
read -r -a MPIRUN_EXTRA <<<"${MPIRUN_FLAGS:-}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-kernel.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
mpicc -std=c11 -O2 "$(cd "$(dirname "$0")" && pwd)/kernel.c" -o "$WORK/kernel"

# run TRACE_DIR|"" -> the program's result line
run() {
    local cmd=("$MPIRUN" --oversubscribe --allow-run-as-root -np "$NP" "${MPIRUN_EXTRA[@]}")
    [ -n "$1" ] && cmd+=(-x "LD_PRELOAD=$LIB" -x "SYNCTRACE_DIR=$1")
    if ! "${cmd[@]}" "$WORK/kernel" "$N" "$ITERS" >"$WORK/out" 2>"$WORK/err"; then
        echo "$0: failed: ${cmd[*]} $WORK/kernel $N $ITERS" >&2
        cat "$WORK/err" >&2
        exit 1
    fi
    cat "$WORK/out"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

plain=() traced=() same=1 events=null
for ((a = 1; a <= ALTS; a++)); do
    p=$(run "")
    rm -rf "$WORK/trace"
    t=$(run "$WORK/trace")
    [ "$(field residual <<<"$p")" = "$(field residual <<<"$t")" ] || same=0
    plain+=("$(field seconds <<<"$p")")
    traced+=("$(field seconds <<<"$t")")
    calls=$(field calls_per_rank <<<"$p")
    if [ "$events" = null ] && command -v otf2-print >/dev/null; then
        events=0
        for anchor in "$WORK"/trace/rank-*.otf2; do
            events=$((events + $(otf2-print "$anchor" 2>/dev/null | grep -cE '^[A-Z_]+ +[0-9]+ +[0-9]+ ')))
        done
    fi
    echo "round $a: plain ${plain[-1]} s, traced ${traced[-1]} s" >&2
done

python3 - "$N" "$ITERS" "$NP" "$calls" "$same" "$events" "${plain[*]}" "${traced[*]}" <<'PY'
import json, statistics, sys
n, iters, np_, calls, same, events = sys.argv[1:7]
plain = [float(x) for x in sys.argv[7].split()]
traced = [float(x) for x in sys.argv[8].split()]
ratios = [t / p for p, t in zip(plain, traced)]
pm = statistics.median(plain)
print(json.dumps({
    "bench": "kernel", "n": int(n), "iterations": int(iters), "ranks": int(np_),
    "mpi_calls_per_rank": int(calls), "mpi_calls_per_second_per_rank": round(int(calls) / pm, 1),
    "same_result": same == "1", "trace_events": None if events == "null" else int(events),
    "plain_seconds": plain, "traced_seconds": traced,
    "plain_seconds_median": pm, "traced_seconds_median": statistics.median(traced),
    "ratios": [round(r, 4) for r in ratios], "ratio_median": round(statistics.median(ratios), 4),
}))
PY
