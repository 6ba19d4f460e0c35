#!/usr/bin/env bash
# overhead.sh — measure the overhead of the synctrace library (see README).
#
#   bench/overhead.sh LIB [ALTERNATIONS]
#
#   LIB           path to libsynctrace.so; "" = run only the plain
#                 (untraced) benchmarks, all traced fields are null
#   ALTERNATIONS  rounds of plain/traced pairs, default 7
#
# Environment:
#   OVERHEAD_BIN     use this overhead binary instead of building bench/overhead.c
#   LOOP_N           loop iterations (4 MPI calls each), default 2000000
#   PP0_N            0-byte ping-pong round trips, default 1000000
#   PP4096_N         4096-byte ping-pong round trips, default 40000
#   BASELINE_LIB     another libsynctrace.so (an older build) run in the same
#                    alternations, after the traced run: its added times and
#                    the ratio of its added time to LIB's ("baseline" fields)
#   OVERHEAD_COUNT   which traced runs to count events of with otf2-print:
#                    first (default: first alternation only), all, none
#   MPIRUN           mpirun command, default "mpirun"
#   MPIRUN_FLAGS     extra mpirun flags, default empty
#
# Prints one JSON object on stdout; progress goes to stderr.
set -euo pipefail

usage() {
    echo "usage: $0 LIB [ALTERNATIONS]   (LIB=\"\" runs only the plain benchmarks)" >&2
    exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
LIB=$1
ALTS=${2:-7}
case $ALTS in '' | *[!0-9]* | 0) echo "$0: ALTERNATIONS must be a positive integer" >&2; exit 2 ;; esac
if [ -n "$LIB" ]; then
    [ -f "$LIB" ] || { echo "$0: library '$LIB' not found" >&2; exit 2; }
    LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
fi
BASELINE_LIB=${BASELINE_LIB:-}
if [ -n "$BASELINE_LIB" ]; then
    [ -n "$LIB" ] && [ -f "$BASELINE_LIB" ] || { echo "$0: BASELINE_LIB '$BASELINE_LIB' not found (or no LIB)" >&2; exit 2; }
    BASELINE_LIB=$(cd "$(dirname "$BASELINE_LIB")" && pwd)/$(basename "$BASELINE_LIB")
fi

LOOP_N=${LOOP_N:-2000000}
PP0_N=${PP0_N:-1000000}
PP4096_N=${PP4096_N:-40000}
OVERHEAD_COUNT=${OVERHEAD_COUNT:-first}
case $OVERHEAD_COUNT in first | all | none) ;; *) echo "$0: OVERHEAD_COUNT must be first, all or none" >&2; exit 2 ;; esac
MPIRUN=${MPIRUN:-mpirun}
read -r -a MPIRUN_EXTRA <<<"${MPIRUN_FLAGS:-}"
PYTHON=${PYTHON:-python3}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# --- the benchmark binary ---------------------------------------------------
if [ -n "${OVERHEAD_BIN:-}" ]; then
    BIN=$OVERHEAD_BIN
    [ -x "$BIN" ] || { echo "$0: OVERHEAD_BIN '$BIN' is not executable" >&2; exit 2; }
else
    SRC=$(cd "$(dirname "$0")" && pwd)/overhead.c
    BIN=$WORK/overhead
    mpicc -std=c11 -O2 "$SRC" -o "$BIN"
fi

# --- helpers ----------------------------------------------------------------
RESULTS=$WORK/results.tsv   # section alt variant value bytes events
: >"$RESULTS"

# run_one NP TRACEDIR|"" LIBRARY ARGS... -> prints the benchmark's stdout
run_one() {
    local np=$1 dir=$2 lib=$3
    shift 3
    local cmd=("$MPIRUN" --oversubscribe --allow-run-as-root -np "$np" "${MPIRUN_EXTRA[@]}")
    if [ -n "$dir" ]; then
        cmd+=(-x "LD_PRELOAD=$lib" -x "SYNCTRACE_DIR=$dir")
    fi
    if ! "${cmd[@]}" "$BIN" "$@" >"$WORK/out" 2>"$WORK/err"; then
        echo "$0: failed: ${cmd[*]} $BIN $*" >&2
        cat "$WORK/err" >&2
        exit 1
    fi
    cat "$WORK/out"
}

# value_of KEY < output -> the number after KEY= on the benchmark's result line
value_of() {
    sed -n "s/^\(loop\|pingpong\) .*$1=\([0-9.eE+-]*\).*/\2/p" | tail -n 1
}

# trace_bytes DIR -> total size of the regular files below DIR
trace_bytes() {
    find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s }'
}

# trace_events DIR -> number of event records over all rank archives, or
# "null" if otf2-print is missing or fails on any archive
trace_events() {
    local dir=$1 total=0 n anchor found=0
    command -v otf2-print >/dev/null 2>&1 || { echo null; return; }
    for anchor in "$dir"/rank-[0-9][0-9][0-9][0-9][0-9][0-9].otf2; do
        [ -f "$anchor" ] || continue
        found=1
        # Event lines start with an upper-case record name (ENTER, LEAVE,
        # MPI_SEND, ...); the header ("=== ...", "Event ...", "---") does not.
        if ! n=$(otf2-print "$anchor" 2>/dev/null | awk '$1 ~ /^[A-Z][A-Z0-9_]*$/ { c++ } END { print c + 0 }'); then
            echo null
            return
        fi
        total=$((total + n))
    done
    if [ $found -eq 1 ] && [ $total -gt 0 ]; then echo $total; else echo null; fi
}

# traced_run SECTION ALT KEY NP ARGS...: one run with LIB, its trace measured
traced_run() {
    local section=$1 alt=$2 key=$3 np=$4
    shift 4
    local v dir bytes events
    dir=$(mktemp -d "$WORK/trace.XXXXXX")
    v=$(run_one "$np" "$dir" "$LIB" "$@" | value_of "$key")
    [ -n "$v" ] || { echo "$0: no $key in traced output of '$*'" >&2; exit 1; }
    bytes=$(trace_bytes "$dir")
    events=null
    if [ "$OVERHEAD_COUNT" = all ] || { [ "$OVERHEAD_COUNT" = first ] && [ "$alt" -eq 1 ]; }; then
        events=$(trace_events "$dir")
    fi
    rm -rf "$dir"
    printf '%s\t%s\ttraced\t%s\t%s\t%s\n' "$section" "$alt" "$v" "$bytes" "$events" >>"$RESULTS"
    echo "  $section traced: $key=$v trace_bytes=$bytes events=$events" >&2
}

# baseline_run SECTION ALT KEY NP ARGS...: one run with BASELINE_LIB
baseline_run() {
    local section=$1 alt=$2 key=$3 np=$4
    shift 4
    local v dir
    dir=$(mktemp -d "$WORK/trace.XXXXXX")
    v=$(run_one "$np" "$dir" "$BASELINE_LIB" "$@" | value_of "$key")
    [ -n "$v" ] || { echo "$0: no $key in baseline output of '$*'" >&2; exit 1; }
    rm -rf "$dir"
    printf '%s\t%s\tbaseline\t%s\tnull\tnull\n' "$section" "$alt" "$v" >>"$RESULTS"
    echo "  $section baseline: $key=$v" >&2
}

# measure SECTION ALT KEY NP ARGS...: one plain and (if LIB) one traced run,
# and (if BASELINE_LIB) one baseline run. The run right after the plain one
# and the run after a traced one (and its trace's removal) do not run alike
# here: 30-50 ns per call apart on the loop, whatever the build. So the two
# builds take turns at each place, baseline first in even alternations.
measure() {
    local section=$1 alt=$2 key=$3 np=$4
    shift 4
    local v
    v=$(run_one "$np" "" "" "$@" | value_of "$key")
    [ -n "$v" ] || { echo "$0: no $key in output of '$*'" >&2; exit 1; }
    printf '%s\t%s\tplain\t%s\tnull\tnull\n' "$section" "$alt" "$v" >>"$RESULTS"
    echo "  $section plain:  $key=$v" >&2
    [ -n "$LIB" ] || return 0
    if [ -n "$BASELINE_LIB" ] && [ $((alt % 2)) -eq 0 ]; then
        baseline_run "$section" "$alt" "$key" "$np" "$@"
        traced_run "$section" "$alt" "$key" "$np" "$@"
    else
        traced_run "$section" "$alt" "$key" "$np" "$@"
        [ -z "$BASELINE_LIB" ] || baseline_run "$section" "$alt" "$key" "$np" "$@"
    fi
}

# --- the alternations -------------------------------------------------------
for ((alt = 1; alt <= ALTS; alt++)); do
    echo "alternation $alt/$ALTS" >&2
    measure loop "$alt" ns_per_call 1 loop "$LOOP_N"
    measure pingpong0 "$alt" ns_per_roundtrip 2 pingpong 0 "$PP0_N"
    measure pingpong4096 "$alt" ns_per_roundtrip 2 pingpong 4096 "$PP4096_N"
done

# --- statistics -------------------------------------------------------------
"$PYTHON" - "$RESULTS" "$ALTS" "$LOOP_N" "$PP0_N" "$PP4096_N" <<'EOF'
import json, statistics, sys

path, alts = sys.argv[1], int(sys.argv[2])
iters = {"loop": int(sys.argv[3]), "pingpong0": int(sys.argv[4]), "pingpong4096": int(sys.argv[5])}
unit = {"loop": "ns_per_call", "pingpong0": "ns_per_roundtrip", "pingpong4096": "ns_per_roundtrip"}

runs = {}  # (section, alt, variant) -> (value, bytes, events)
with open(path) as f:
    for line in f:
        section, alt, variant, value, nbytes, events = line.rstrip("\n").split("\t")
        num = lambda s: None if s == "null" else float(s)
        runs[(section, int(alt), variant)] = (float(value), num(nbytes), num(events))

def median(xs):
    return statistics.median(xs) if xs else None

def rnd(x, digits=3):
    if x is None:
        return None
    return int(round(x)) if digits == 0 else round(x, digits)

out = {"bench": "overhead", "alternations": alts}
all_bytes = all_events = 0
for section in ("loop", "pingpong0", "pingpong4096"):
    u = unit[section]
    plain, traced, added, ratio, tbytes, tevents, bpe = [], [], [], [], [], [], []
    base_added, base_ratio = [], []
    for a in range(1, alts + 1):
        p = runs[(section, a, "plain")][0]
        plain.append(p)
        t = runs.get((section, a, "traced"))
        if t is None:
            continue
        traced.append(t[0])
        added.append(t[0] - p)
        b = runs.get((section, a, "baseline"))
        if b is not None:
            base_added.append(b[0] - p)
            if t[0] - p > 0:
                base_ratio.append((b[0] - p) / (t[0] - p))
        if p > 0:
            ratio.append(t[0] / p)
        if t[1] is not None:
            tbytes.append(t[1])
        if t[1] is not None and t[2]:
            tevents.append(t[2])
            bpe.append(t[1] / t[2])
            all_bytes += t[1]
            all_events += t[2]
    out[section] = {
        "iterations": iters[section],
        "plain_%s_median" % u: rnd(median(plain)),
        "traced_%s_median" % u: rnd(median(traced)),
        "added_%s_median" % u: rnd(median(added)),
        "ratio_median": rnd(median(ratio), 4),
        "plain_%s" % u: [rnd(x) for x in plain],
        "traced_%s" % u: [rnd(x) for x in traced] if traced else None,
        "trace_bytes_median": rnd(median(tbytes), 0),
        "trace_events_median": rnd(median(tevents), 0),
        "trace_bytes_per_event": rnd(median(bpe), 2),
    }
    if base_added:
        out[section]["baseline_added_%s_median" % u] = rnd(median(base_added))
        out[section]["baseline_added_over_added_median"] = rnd(median(base_ratio), 3)
out["trace_bytes_per_event"] = rnd(all_bytes / all_events, 2) if all_events else None
print(json.dumps(out, allow_nan=False))
EOF
