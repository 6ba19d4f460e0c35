#!/bin/bash
# bench/waits_parallel.sh [OUT_DIR] [ALTERNATIONS=3] [NPS="2"] — `synctrace
# waits OUT --json` as one process against `mpirun -np K synctrace waits
# OUT --json`, alternated in one run. Prints one JSON object: per process
# count the median wall time (mpirun's start and end included), the
# speed-up over one process, the launcher's own start (`mpirun -np K
# synctrace waits --help`: MPI_Init and MPI_Finalize, no analysis), and
# whether every waits.json (but seconds_analysis and spilled_bytes) and
# waits-instances.bin was the one process's. Without OUT_DIR, a trace is
# generated and merged first (synctrace-gen, 8 ranks, stencil2d, 8000
# iterations, as bench/waits.sh). Environment: BUILD (the build
# directory; default the one above this script), MPIRUN (mpirun).
set -euo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
alts=${2:-3}
nps=${3:-2}
MPIRUN=${MPIRUN:-mpirun}
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl=self,vader,tcp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${1:-}
if [ -z "$out" ]; then
    "$build/synctrace-gen" "$tmp/raw" --ranks 8 --pattern stencil2d --iterations 8000 --seed 1 >/dev/null
    "$build/synctrace" merge "$tmp/raw" -o "$tmp/out" >/dev/null
    out=$tmp/out
fi
mpi() { "$MPIRUN" --allow-run-as-root --oversubscribe -np "$@"; }
strip() { grep -v '"seconds_analysis"\|"spilled_bytes"' "$1"; }
"$build/synctrace" waits "$out" --json >"$tmp/ref.txt"
strip "$out/waits.json" >"$tmp/ref.json"
cp "$out/waits-instances.bin" "$tmp/ref.bin"
same=true
times="" starts=""
for ((i = 0; i < alts; i++)); do
    t0=$EPOCHREALTIME; "$build/synctrace" waits "$out" --json >/dev/null; t1=$EPOCHREALTIME
    times+=" 1:$t0:$t1"
    for np in $nps; do
        t0=$EPOCHREALTIME; mpi "$np" "$build/synctrace" waits "$out" --json >"$tmp/np.txt"; t1=$EPOCHREALTIME
        times+=" $np:$t0:$t1"
        cmp -s "$tmp/ref.txt" "$tmp/np.txt" && cmp -s "$tmp/ref.json" <(strip "$out/waits.json") \
            && cmp -s "$tmp/ref.bin" "$out/waits-instances.bin" || same=false
        t0=$EPOCHREALTIME; mpi "$np" "$build/synctrace" waits --help >/dev/null; t1=$EPOCHREALTIME
        starts+=" $np:$t0:$t1"
    done
done
events=$(sed -n 's/^synctrace waits: \([0-9]*\) events.*/\1/p' "$tmp/ref.txt")
python3 - "$events" "$same" "$times" "$starts" "$(nproc)" <<'PY'
import json, statistics, sys
events, same, times, starts, cores = int(sys.argv[1]), sys.argv[2] == "true", sys.argv[3], sys.argv[4], int(sys.argv[5])
def spans(s):
    d = {}
    for x in s.split():
        k, a, b = x.split(':')
        d.setdefault(int(k), []).append(float(b) - float(a))
    return d
t, st = spans(times), spans(starts)
med = statistics.median
one = med(t[1])
print(json.dumps({"bench": "waits_parallel", "events": events, "cores": cores, "alternations": len(t[1]),
                  "wall_s": {str(k): med(v) for k, v in sorted(t.items())},
                  "speedup": {str(k): one / med(v) for k, v in sorted(t.items()) if k > 1},
                  "launcher_start_s": {str(k): med(v) for k, v in sorted(st.items())},
                  "same_output": same, "runs_s": {str(k): v for k, v in sorted(t.items())}}))
PY
