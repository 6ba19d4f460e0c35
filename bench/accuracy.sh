#!/bin/bash
# bench/accuracy.sh [RAW_DIR...] — accuracy of three global times against
# the true times of traces taken with SYNCTRACE_SKEW:
#   ours          synctrace merge (constraint solving)
#   interpolated  the ClockOffsets interpolated linearly (today's tools)
#   clc           the controlled logical clock, Scalasca's repair of the
#                 interpolated times (tools/clc/clc.c)
# Each RAW_DIR is merged (into a temporary directory) and one JSON line per
# trace is printed: for each method the tachyons left, the max and median
# error against true time (common shift and rate removed) and the largest
# change of an interval between consecutive events of a rank.
#
# Without arguments it first traces the example itself: examples/stencil on
# NP=4 ranks under mpirun with the tracer, SYNCTRACE_SKEW=seed=N,
# offset_us=1000,drift_ppm=50 for SEEDS="1 2 3".
#
# Environment: BUILD (the build directory; default: the directory above this
# script), SYNCTRACE (the synctrace binary; default $BUILD/synctrace),
# SYNCTRACE_LIB (default $BUILD/.libs/libsynctrace.so), MPIRUN (mpirun),
# SEEDS, NP, ITERS (stencil iterations, default 200), KEEP_TRACES (a
# directory to keep the generated raw traces in), MERGE_FLAGS (extra flags
# for synctrace merge, e.g. --min-latency 200).
# Progress goes to stderr. Exit code: 0 ok, 1 a run or merge failed or a
# trace has no true times, 2 bad usage.
set -uo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
synctrace=${SYNCTRACE:-$build/synctrace}
lib=${SYNCTRACE_LIB:-$build/.libs/libsynctrace.so}
mpirun=${MPIRUN:-mpirun}
seeds=${SEEDS:-1 2 3}
np=${NP:-4}
iters=${ITERS:-200}
case ${1:-} in
-h | --help)
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0 ;;
esac
if [ ! -x "$synctrace" ]; then
    echo "accuracy.sh: $synctrace not found (build first, or set BUILD or SYNCTRACE)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-accuracy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
    stencil=$build/examples/stencil
    if [ ! -x "$stencil" ] || [ ! -f "$lib" ]; then
        echo "accuracy.sh: need $stencil and $lib (make), or give RAW_DIRs" >&2
        exit 2
    fi
    where=${KEEP_TRACES:-$tmp}
    mkdir -p "$where" || exit 2
    # Quiet, loopback-only Open MPI, as the tests run it.
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
    export OMPI_MCA_btl=self,vader,tcp
    for seed in $seeds; do
        dir=$where/stencil-np$np-seed$seed
        rm -rf "$dir"
        skew="seed=$seed,offset_us=1000,drift_ppm=50"
        echo "accuracy.sh: tracing $stencil -i $iters on $np ranks with SYNCTRACE_SKEW=$skew" >&2
        if ! timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
            -x LD_PRELOAD="$lib" -x SYNCTRACE_DIR="$dir" -x SYNCTRACE_SKEW="$skew" \
            "$stencil" -i "$iters" >"$tmp/run.out" 2>&1; then
            echo "accuracy.sh: the traced run for seed $seed failed:" >&2
            tail -5 "$tmp/run.out" >&2
            status=1
            continue
        fi
        traces+=("$dir")
    done
fi

for raw in "${traces[@]}"; do
    out=$tmp/merged
    echo "accuracy.sh: merging $raw" >&2
    # shellcheck disable=SC2086
    if ! "$synctrace" merge "$raw" -o "$out" --force ${MERGE_FLAGS:-} >"$tmp/merge.out" 2>&1; then
        echo "accuracy.sh: synctrace merge $raw failed:" >&2
        tail -5 "$tmp/merge.out" >&2
        status=1
        continue
    fi
    python3 - "$raw" "$out/report.json" <<'PY' || status=1
import json, sys
raw, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
line = {"trace": raw, "ranks": r["ranks"], "events": r["events"], "messages": r["messages"],
        "collectives": r["collectives"]}
t, c = r.get("truth"), r.get("clc")
if t is None or c is None:
    line["error"] = "no true times: take the trace with SYNCTRACE_SKEW"
    print(json.dumps(line))
    sys.exit(1)
line["ours"] = {"tachyons": r["tachyons_after"], "error_max_ns": t["error_max_ns"],
                "error_median_ns": t["error_median_ns"],
                "interval_distortion_max_ns": t["interval_distortion_max_ns"]}
line["interpolated"] = {"tachyons": r["tachyons_raw"], "error_max_ns": t["interpolated_error_max_ns"],
                        "error_median_ns": t["interpolated_error_median_ns"],
                        "interval_distortion_max_ns": t.get("interpolated_interval_distortion_max_ns")}
line["clc"] = {"tachyons": c["tachyons_after"], "error_max_ns": c["error_max_ns"],
               "error_median_ns": c["error_median_ns"],
               "interval_distortion_max_ns": c["interval_distortion_max_ns"],
               "jumps": c["jumps"], "max_jump_ns": c["max_jump_ns"]}
print(json.dumps(line))
PY
done
exit $status
