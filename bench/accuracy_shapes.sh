#!/bin/bash
# bench/accuracy_shapes.sh — the merge's error against true time, and plain
# ClockOffset interpolation's, on program shapes where clock models go
# wrong (bench/shapes.c: short collective-only runs, silent ranks, bucket
# sort, non-blocking collectives, gatherv, a ring, a long run with rare
# world collectives, a ping-pong) and the bundled stencil, each traced with
# several skew seeds; with SHAPES naming them, the Debian clients of the
# test suite too (netpipe, mpi4py, hpcc, blacs: ScaLAPACK's BLACS tester,
# lu: its LU tester). One JSON line per trace, then a summary line:
#   {"trace": ..., "ours": {"max_ns", "median_ns", "delta_ns"},
#    "baseline": {...} (with BASELINE set), "interpolated": {...}}
#   {"summary": true, "runs": N, "worse_max": K, "worse_max_20ns": K, "worse_median_20ns": K, ...}
# (worse_max counts any excess; the _20ns counts only those beyond one
# clock read's noise, 20 ns)
# "worse" compares ours with interpolation's in the same run, and so do the
# ratios (ours / interpolation's: geometric mean and worst); with BASELINE
# (another synctrace binary, e.g. the previous build) its figures on the
# same traces are printed beside ours, and its own figure for interpolation
# ("baseline_interpolated"), so that a change to that reading is seen.
# MERGE_FLAGS go to both merges.
# Environment: BUILD (default: the directory above), SYNCTRACE, BASELINE,
# SHAPES, SEEDS (default "1 2 3"), NP (4), KEEP_TRACES (a directory: traces
# are kept, and reused when present).
set -uo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
src=$(cd "$(dirname "$0")" && pwd)
synctrace=${SYNCTRACE:-$build/synctrace}
lib=${SYNCTRACE_LIB:-$build/.libs/libsynctrace.so}
shapes=${SHAPES:-bcast silent bucket iallreduce gatherv ring longrun pingpong stencil}
seeds=${SEEDS:-1 2 3}
np=${NP:-4}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-shapes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
where=${KEEP_TRACES:-$tmp}
mkdir -p "$where"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl=self,vader,tcp
mpicc -O2 -o "$tmp/shapes" "$src/shapes.c" || exit 2
status=0
: >"$tmp/lines"
top=$(cd "$src/.." && pwd)
scalapack_tests=$(ls -d /usr/lib/*/scalapack/openmpi-tests 2>/dev/null | head -1)
# program SHAPE: its command line in prog, its ranks in n, its input files
# copied into the run's directory (the Debian clients read them from there)
program() {
    n=$np
    case $1 in
    stencil) prog=("$build/examples/stencil") ;;
    netpipe) n=2; prog=(NPopenmpi -n 20 -u 16384 -a -z -o /dev/null) ;;
    mpi4py) n=3; prog=(/usr/bin/python3 "$top/tests/mpi/mpi4py_client.py") ;;
    hpcc) cp "$top/tests/clients/hpccinf.txt" "$run/"; prog=(hpcc) ;;
    blacs) cp "$top"/tests/clients/blacs/*.dat "$run/"; prog=("$scalapack_tests/xCbtest") ;;
    lu) cp "$top"/tests/clients/scalapack/*.dat "$run/"; prog=("$scalapack_tests/xdlu") ;;
    *) prog=("$tmp/shapes" "$1") ;;
    esac
}
for shape in $shapes; do
    for seed in $seeds; do
        run=$tmp/run-$shape-$seed
        mkdir -p "$run"
        program "$shape"
        dir=$where/$shape-np$n-seed$seed
        if [ ! -f "$dir/run.meta" ]; then
            rm -rf "$dir"
            if ! (cd "$run" && timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$n" -x LD_PRELOAD="$lib" \
                -x SYNCTRACE_DIR="$dir" -x SYNCTRACE_SKEW="seed=$seed,offset_us=1000,drift_ppm=50" \
                "${prog[@]}" >"$tmp/run.out" 2>&1); then
                echo "accuracy_shapes.sh: $shape seed $seed failed" >&2
                status=1
                continue
            fi
        fi
        for who in ours ${BASELINE:+baseline}; do
            bin=$synctrace
            [ "$who" = baseline ] && bin=$BASELINE
            "$bin" merge "$dir" -o "$tmp/$who" --force ${MERGE_FLAGS:-} >/dev/null 2>&1 || { status=1; continue 2; }
        done
        python3 - "$dir" "$tmp/ours/report.json" ${BASELINE:+"$tmp/baseline/report.json"} <<'PY' | tee -a "$tmp/lines"
import json, sys
def fig(path):
    r = json.load(open(path)); t = r["truth"]
    return r, {"max_ns": t["error_max_ns"], "median_ns": t["error_median_ns"], "delta_ns": r.get("delta_ns")}
r, ours = fig(sys.argv[2])
t = r["truth"]
line = {"trace": sys.argv[1].rstrip("/").split("/")[-1], "events": r["events"], "ours": ours,
        "interpolated": {"max_ns": t["interpolated_error_max_ns"], "median_ns": t["interpolated_error_median_ns"]}}
if len(sys.argv) > 3:
    rb, line["baseline"] = fig(sys.argv[3])
    tb = rb["truth"]   # the baseline build's reading of interpolation, if it differs
    line["baseline_interpolated"] = {"max_ns": tb["interpolated_error_max_ns"],
                                     "median_ns": tb["interpolated_error_median_ns"]}
print(json.dumps(line))
PY
    done
done
python3 - "$tmp/lines" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
import math
def worse(who, interp="interpolated"):
    got = [r for r in rows if who in r and interp in r]
    ratio = lambda k: [r[who][k] / r[interp][k] for r in got if r[interp][k] > 0 and r[who][k] > 0]
    gmean = lambda v: round(math.exp(sum(map(math.log, v)) / len(v)), 3) if v else None
    return {"worse_max": sum(r[who]["max_ns"] > r[interp]["max_ns"] for r in got),
            "worse_max_20ns": sum(r[who]["max_ns"] > r[interp]["max_ns"] + 20 for r in got),
            "worse_median_20ns": sum(r[who]["median_ns"] > r[interp]["median_ns"] + 20 for r in got),
            "repaired": sum((r[who]["delta_ns"] or 0) > 0 for r in got),
            "max_ratio_gmean": gmean(ratio("max_ns")), "max_ratio_worst": round(max(ratio("max_ns"), default=0), 3),
            "median_ratio_gmean": gmean(ratio("median_ns")),
            "median_ratio_worst": round(max(ratio("median_ns"), default=0), 3)}
out = {"summary": True, "runs": len(rows), "ours": worse("ours")}
if any("baseline" in r for r in rows):
    out["baseline"] = worse("baseline")
    # both builds against the baseline build's figure for interpolation
    out["ours_vs_baseline_interpolated"] = worse("ours", "baseline_interpolated")
    out["baseline_vs_baseline_interpolated"] = worse("baseline", "baseline_interpolated")
print(json.dumps(out))
PY
exit $status
