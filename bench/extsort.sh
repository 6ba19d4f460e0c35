#!/usr/bin/env bash
# extsort.sh — the external sort (tools/util/extsort.c) against qsort of
# the whole array: bench/extsort_bench.c, built here with cc -O2.
#
#   bench/extsort.sh [RECORDS [RECORD_BYTES [BUDGET_MB [REPEAT]]]]   (default 10000000 40 16 3)
#
# Environment: CC (default cc), EXTSORT_SPILL_DIR (default $TMPDIR or /tmp).
# Prints the program's JSON line (see bench/README); exit 1 on a failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-extsort.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
"${CC:-cc}" -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -I"$top/tools/util" -I"$top/common" \
    "$top/bench/extsort_bench.c" "$top/tools/util/extsort.c" "$top/common/table.c" "$top/common/fsutil.c" -o "$WORK/extsort_bench"
"$WORK/extsort_bench" "$@"
