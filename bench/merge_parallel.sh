#!/bin/bash
# bench/merge_parallel.sh RAW_DIR [ALTERNATIONS=3] [NPS="2 3"] [MERGE OPTIONS...]
#
# `synctrace merge` as one process against `mpirun -np K synctrace merge`
# on the same raw trace, alternated, in one run (issue 12 §2). Prints one
# JSON object: per process count the median wall time (mpirun's start and
# end included), the merge's own time (report.json's seconds.total), the
# peak RSS of each process (MB), the speed-ups over one process, and
# whether every output was the one process's, file for file (tests/lib.sh
# merged_differences). Also the CPU seconds of each run (all processes,
# user + system), the cores one process kept busy on average, the start of
# K processes under the launcher (`mpirun -np K synctrace merge --help`:
# MPI_Init and MPI_Finalize, no merge), and what that leaves on this node:
# bound_one_node = one process's wall time / (its CPU seconds / the cores
# + the start), the most K processes sharing these cores could gain if
# they did no more work than one process and kept every core busy.
# Environment: SYNCTRACE (default build/synctrace), MPIRUN (mpirun),
# BENCH_DIR (scratch, default a temporary directory).
set -u
raw=${1:?usage: bench/merge_parallel.sh RAW_DIR [ALTERNATIONS] [NPS] [MERGE OPTIONS...]}
alternations=${2:-3}
nps=${3:-"2 3"}
shift $(($# < 3 ? $# : 3))
here=$(cd "$(dirname "$0")/.." && pwd)
st=${SYNCTRACE:-$here/build/synctrace}
MPIRUN=${MPIRUN:-mpirun}
work=${BENCH_DIR:-$(mktemp -d)}
top_srcdir=$here top_builddir=$(dirname "$st") . "$here/tests/lib.sh"
set +u

# Each process's peak RSS into $work/peak.<place> (the launcher says the place).
cat >"$work/rss.sh" <<EOF
#!/bin/sh
exec /usr/bin/time -f "%M %U %S" -o "$work/peak.\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}" "$st" "\$@"
EOF
chmod +x "$work/rss.sh"

now() { date +%s.%N; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
total_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seconds']['total'])" "$1/report.json"; }

declare -A wall merge rss cpu start
same=true
events=""
for a in $(seq "$alternations"); do
    for np in 1 $nps; do
        out=$work/out.$np
        rm -rf "$out" "$work"/peak.*
        t0=$(now)
        if [ "$np" = 1 ]; then
            "$work/rss.sh" merge "$raw" -o "$out" "$@" >/dev/null 2>"$work/err.$np"
        else
            "$MPIRUN" --allow-run-as-root --oversubscribe -np "$np" "$work/rss.sh" merge "$raw" -o "$out" "$@" \
                >/dev/null 2>"$work/err.$np"
        fi
        rc=$?
        t1=$(now)
        if [ $rc != 0 ]; then
            echo "bench/merge_parallel.sh: np $np failed: $(head -1 "$work/err.$np")" >&2
            exit 1
        fi
        wall[$np]="${wall[$np]} $(echo "$t1 - $t0" | bc)"
        merge[$np]="${merge[$np]} $(total_of "$out")"
        rss[$np]=$(for p in $(seq 0 $((np - 1))); do echo $(( $(cut -d' ' -f1 "$work/peak.$p") / 1024 )); done | paste -sd, -)
        cpu[$np]="${cpu[$np]} $(cat "$work"/peak.* | awk '{ s += $2 + $3 } END { print s }')"
        [ -n "$events" ] || events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$out/report.json")
        if [ "$np" != 1 ]; then
            diff=$(merged_differences "$work/out.1" "$out" | tr '\n' ' ')
            [ -z "$diff" ] || { same=false; echo "bench/merge_parallel.sh: np $np differs: $diff" >&2; }
        fi
        if [ "$np" != 1 ]; then   # the launcher's and MPI's start and end alone
            t0=$(now)
            "$MPIRUN" --allow-run-as-root --oversubscribe -np "$np" "$st" merge --help >/dev/null 2>&1
            start[$np]="${start[$np]} $(echo "$(now) - $t0" | bc)"
        fi
    done
done
cores=$(nproc)
w1=$(echo "${wall[1]}" | median)
c1=$(echo "${cpu[1]}" | median)
m1=$(echo "${merge[1]}" | median)
printf '{"bench":"merge_parallel","raw":"%s","events":%s,"alternations":%s,"options":"%s","same_output":%s' \
    "$raw" "$events" "$alternations" "$*" "$same"
printf ',"cores":%s,"np1_cores_busy":%.3f' "$cores" "$(echo "$c1 / $w1" | bc -l)"
for np in 1 $nps; do
    w=$(echo "${wall[$np]}" | median)
    m=$(echo "${merge[$np]}" | median)
    printf ',"np%s":{"wall_s_median":%s,"merge_s_median":%s,"cpu_s_median":%s,"speedup_wall":%.3f,"speedup_merge":%.3f,"peak_rss_mb":[%s]' \
        "$np" "$w" "$m" "$(echo "${cpu[$np]}" | median)" "$(echo "$w1 / $w" | bc -l)" "$(echo "$m1 / $m" | bc -l)" "${rss[$np]}"
    if [ "$np" != 1 ]; then
        s=$(echo "${start[$np]}" | median)
        printf ',"start_s_median":%s,"bound_one_node":%.3f' "$s" "$(echo "$w1 / ($c1 / $cores + $s)" | bc -l)"
    fi
    printf '}'
done
printf '}\n'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
