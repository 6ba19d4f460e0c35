#!/usr/bin/env bash
# fortran.sh — what the Fortran wrappers add to the tracer's per-call cost.
#
#   bench/fortran.sh LIB [ALTERNATIONS]
#
# Runs bench/overhead.c's "loop" (4 cheap MPI calls per iteration: Isend to
# self, Recv, Wait, Iprobe) in C and its Fortran twin bench/overhead_fortran.F90
# built with include 'mpif.h' and with use mpi_f08, each without and with the
# tracer (LD_PRELOAD=LIB), alternated ALTERNATIONS times (default 5) so that
# machine load hits all alike. The C loop is the baseline of the same run:
# Isend, Recv and Wait go through the converting Fortran wrappers, Iprobe
# through a region around Open MPI's pmpi_iprobe_.
# Environment: LOOP_N iterations (default 1000000), MPIRUN.
# Prints one JSON object: per variant the median plain and traced ns per
# call, the added ns per call, and the added cost relative to C's.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -f "$1" ]; then
    echo "usage: $0 path/to/libsynctrace.so [ALTERNATIONS]" >&2
    exit 2
fi
LIB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ALTS=${2:-5}
case $ALTS in '' | *[!0-9]* | 0) echo "$0: ALTERNATIONS must be a positive integer" >&2; exit 2 ;; esac
N=${LOOP_N:-1000000}
MPIRUN=${MPIRUN:-mpirun}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

mpicc -std=c11 -O2 -o "$WORK/c" "$HERE/overhead.c"
(cd "$WORK" && mpifort -O2 -o "$WORK/mpif_h" "$HERE/overhead_fortran.F90" \
    && mpifort -O2 -DBINDING_F08 -o "$WORK/mpi_f08" "$HERE/overhead_fortran.F90") || {
    echo "$0: mpifort cannot build bench/overhead_fortran.F90" >&2
    exit 1
}

: >"$WORK/results"
for alt in $(seq "$ALTS"); do
    for v in c mpif_h mpi_f08; do
        args=("$N")
        [ "$v" = c ] && args=(loop "$N")
        for mode in plain traced; do
            env=()
            [ "$mode" = traced ] && env=(-x "LD_PRELOAD=$LIB" -x "SYNCTRACE_DIR=$WORK/trace-$v-$alt")
            out=$("$MPIRUN" --allow-run-as-root --oversubscribe -np 1 "${env[@]}" "$WORK/$v" "${args[@]}" 2>"$WORK/err") || {
                echo "$0: $v $mode failed" >&2
                cat "$WORK/err" >&2
                exit 1
            }
            rm -rf "$WORK/trace-$v-$alt"
            echo "$v $mode $(sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' <<<"$out")" >>"$WORK/results"
            echo "alternation $alt: $v $mode done" >&2
        done
    done
done

"${PYTHON:-python3}" - "$WORK/results" "$N" "$ALTS" <<'PY'
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
res = {"bench": "fortran", "iterations": int(sys.argv[2]), "alternations": int(sys.argv[3])}
for v in ("c", "mpif_h", "mpi_f08"):
    plain = [float(r[2]) for r in rows if r[0] == v and r[1] == "plain"]
    traced = [float(r[2]) for r in rows if r[0] == v and r[1] == "traced"]
    added = [t - p for p, t in zip(plain, traced)]
    res[v] = {"plain_ns_per_call_median": round(statistics.median(plain), 3),
              "traced_ns_per_call_median": round(statistics.median(traced), 3),
              "added_ns_per_call_median": round(statistics.median(added), 3),
              "plain_ns_per_call": plain, "traced_ns_per_call": traced}
for v in ("mpif_h", "mpi_f08"):
    c = res["c"]["added_ns_per_call_median"]
    res[v]["added_vs_c_ratio"] = round(res[v]["added_ns_per_call_median"] / c, 3) if c > 0 else None
print(json.dumps(res))
PY
