#!/usr/bin/env bash
# commdup.sh — the tracer's cost per MPI_Comm_dup/MPI_Comm_free pair, which
# must not grow with the number of communicators made before (see README).
#
#   bench/commdup.sh LIB [PAIRS] [ROUNDS]
#
#   LIB     path to libsynctrace.so
#   PAIRS   MPI_Comm_dup/MPI_Comm_free pairs per run, default 50000
#   ROUNDS  untraced/traced alternations, default 3
#
# Environment: MPIRUN (default mpirun), MPIRUN_FLAGS, NP (ranks, default 1:
# MPI_Comm_dup is then local, and only the tracer's cost is in the times),
# MPICC (default mpicc), SYNCTRACE_DIR is set to a temporary directory.
# Prints one JSON object on stdout: per round the untraced and traced
# seconds, each split into the first and second half of the pairs, and the
# median ratios traced/untraced and second half/first half (traced): a cost
# that grows with the run shows as a second half dearer than the first.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 LIB [PAIRS] [ROUNDS]" >&2
    exit 2
fi
LIB=$1
PAIRS=${2:-50000}
ROUNDS=${3:-3}
case $PAIRS$ROUNDS in *[!0-9]*) echo "$0: PAIRS and ROUNDS must be positive integers" >&2; exit 2 ;; esac
[ "$PAIRS" -gt 0 ] && [ "$ROUNDS" -gt 0 ] || { echo "$0: PAIRS and ROUNDS must be positive" >&2; exit 2; }
[ -f "$LIB" ] || { echo "$0: library '$LIB' not found" >&2; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
MPIRUN=${MPIRUN:-mpirun}
read -r -a MPIRUN_EXTRA <<<"${MPIRUN_FLAGS:-}"
NP=${NP:-1}
here=$(cd "$(dirname "$0")" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-commdup.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
"${MPICC:-mpicc}" -std=c11 -D_GNU_SOURCE -O2 -o "$WORK/commkeys" "$here/../tests/mpi/mpi_commkeys.c"

# one run: prints "TOTAL FIRST SECOND" (seconds)
run() {
    local out
    if [ "$1" = traced ]; then
        rm -rf "$WORK/trace"
        out=$("$MPIRUN" --allow-run-as-root --oversubscribe "${MPIRUN_EXTRA[@]}" -np "$NP" \
            -x LD_PRELOAD="$LIB" -x SYNCTRACE_DIR="$WORK/trace" "$WORK/commkeys" dups "$PAIRS" 2>&1 >/dev/null)
    else
        out=$("$MPIRUN" --allow-run-as-root --oversubscribe "${MPIRUN_EXTRA[@]}" -np "$NP" \
            "$WORK/commkeys" dups "$PAIRS" 2>&1 >/dev/null)
    fi
    echo "$out" | awk '$1 == "dups_seconds" { print $2, $3, $4 }'
}

rows=""
for ((i = 1; i <= ROUNDS; i++)); do
    echo "round $i/$ROUNDS: untraced" >&2
    read -r pt pa pb < <(run plain)
    echo "round $i/$ROUNDS: traced" >&2
    read -r tt ta tb < <(run traced)
    rows+="$pt $pa $pb $tt $ta $tb"$'\n'
done
printf '%s' "$rows" | awk -v pairs="$PAIRS" -v np="$NP" '
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; r[n] = $0; ratio[n] = $4 / $1; growth[n] = $6 / $5; plain[n] = $1; traced[n] = $4 }
END {
    printf "{\"pairs\": %d, \"ranks\": %d, \"rounds\": [", pairs, np
    for (i = 1; i <= n; i++) {
        split(r[i], f, " ")
        printf "%s{\"untraced_s\": %s, \"untraced_halves_s\": [%s, %s], \"traced_s\": %s, \"traced_halves_s\": [%s, %s]}",
               (i > 1 ? ", " : ""), f[1], f[2], f[3], f[4], f[5], f[6]
    }
    printf "], \"median_traced_over_untraced\": %.3f, \"median_traced_second_over_first_half\": %.3f, ", median(ratio, n), median(growth, n)
    printf "\"median_untraced_us_per_pair\": %.2f, \"median_traced_us_per_pair\": %.2f}\n",
           median(plain, n) / pairs * 1e6, median(traced, n) / pairs * 1e6
}'
