#!/usr/bin/env bash
# hpcc.sh — run time of a real compute-bound client, Debian's hpcc (HPL,
# PTRANS, STREAM, RandomAccess, FFT, latency/bandwidth), untraced and traced
# alternately in one run.
#
#   bench/hpcc.sh LIB [ALTERNATIONS]
#
#   LIB           path to libsynctrace.so
#   ALTERNATIONS  rounds of plain/traced pairs, default 3
#
# Environment: HPCC_N (HPL matrix order, default 4000; the other kernels
# size themselves from it), HPCC_NP (ranks, default 2, grid 1 x NP),
# MPIRUN, MPIRUN_FLAGS as for overhead.sh.
# Prints one JSON object on stdout: the wall-clock seconds of each run, the
# medians and the median traced/plain ratio; progress goes to stderr.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 LIB [ALTERNATIONS]" >&2
    exit 2
fi
LIB=$1
ALTS=${2:-3}
case $ALTS in '' | *[!0-9]* | 0) echo "$0: ALTERNATIONS must be a positive integer" >&2; exit 2 ;; esac
[ -f "$LIB" ] || { echo "$0: library '$LIB' not found" >&2; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
HPCC=$(command -v hpcc) || { echo "$0: hpcc not installed (Debian package hpcc)" >&2; exit 2; }
N=${HPCC_N:-4000}
NP=${HPCC_NP:-2}
case $N$NP in *[!0-9]*) echo "$0: HPCC_N and HPCC_NP must be whole numbers" >&2; exit 2 ;; esac
MPIRUN=${MPIRUN:-mpirun}
read -r -a MPIRUN_EXTRA <<<"${MPIRUN_FLAGS:-}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-hpcc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# The input: one HPL problem of order N on a 1 x NP grid, NB 100.
cat >"$WORK/hpccinf.txt" <<EOT
HPLinpack benchmark input file (synctrace bench/hpcc.sh)
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$N           Ns
1            # of NBs
100          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
$NP          Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
EOT

# run_one DIR|"" -> wall-clock seconds of one hpcc run (in its own directory)
run_one() {
    local trace=$1 d
    d=$(mktemp -d "$WORK/run.XXXXXX")
    cp "$WORK/hpccinf.txt" "$d/"
    local cmd=("$MPIRUN" --oversubscribe --allow-run-as-root -np "$NP" "${MPIRUN_EXTRA[@]}")
    [ -n "$trace" ] && cmd+=(-x "LD_PRELOAD=$LIB" -x "SYNCTRACE_DIR=$trace")
    local t0 t1
    t0=$(date +%s.%N)
    if ! (cd "$d" && "${cmd[@]}" "$HPCC" >"$d/out" 2>"$d/err"); then
        echo "$0: failed: ${cmd[*]} $HPCC" >&2
        cat "$d/err" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    grep -q "End of HPC Challenge" "$d/hpccoutf.txt" || { echo "$0: hpcc did not finish its tests" >&2; exit 1; }
    rm -rf "$d" ${trace:+"$trace"}
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

plain=() traced=()
for ((alt = 1; alt <= ALTS; alt++)); do
    p=$(run_one "")
    t=$(run_one "$WORK/trace.$alt")
    plain+=("$p")
    traced+=("$t")
    echo "alternation $alt/$ALTS: plain ${p} s, traced ${t} s" >&2
done

"${PYTHON:-python3}" - "$N" "$NP" "${plain[*]}" "${traced[*]}" <<'EOF2'
import json, statistics, sys
n, np_, plain, traced = int(sys.argv[1]), int(sys.argv[2]), [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
print(json.dumps({"bench": "hpcc", "hpl_n": n, "ranks": np_,
                  "plain_s": plain, "traced_s": traced,
                  "plain_s_median": statistics.median(plain), "traced_s_median": statistics.median(traced),
                  "ratio_median": round(statistics.median(t / p for p, t in zip(plain, traced)), 4)}))
EOF2
