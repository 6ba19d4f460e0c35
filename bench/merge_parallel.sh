#!/bin/bash
# bench/merge_parallel.sh RAW_DIR [ALTERNATIONS=3] [NPS="2 3"] [MERGE OPTIONS...]
#
# `synctrace merge` as one process against `mpirun -np K synctrace merge`
# on the same raw trace, alternated, in one run (issue 12 §2). Prints one
# JSON object: per process count the median wall time (mpirun's start and
# end included), the merge's own time (report.json's seconds.total), the
# peak RSS of each process (MB), the speed-ups over one process, and
# whether every output was the one process's, file for file (tests/lib.sh
# merged_differences). Environment: SYNCTRACE (default build/synctrace),
# MPIRUN (mpirun), BENCH_DIR (scratch, default a temporary directory).
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
exec /usr/bin/time -f %M -o "$work/peak.\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}" "$st" "\$@"
EOF
chmod +x "$work/rss.sh"

now() { date +%s.%N; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
total_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seconds']['total'])" "$1/report.json"; }

declare -A wall merge rss
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
        rss[$np]=$(for p in $(seq 0 $((np - 1))); do echo $(( $(cat "$work/peak.$p") / 1024 )); done | paste -sd, -)
        [ -n "$events" ] || events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$out/report.json")
        if [ "$np" != 1 ]; then
            diff=$(merged_differences "$work/out.1" "$out" | tr '\n' ' ')
            [ -z "$diff" ] || { same=false; echo "bench/merge_parallel.sh: np $np differs: $diff" >&2; }
        fi
    done
done
w1=$(echo "${wall[1]}" | median)
m1=$(echo "${merge[1]}" | median)
printf '{"bench":"merge_parallel","raw":"%s","events":%s,"alternations":%s,"options":"%s","same_output":%s' \
    "$raw" "$events" "$alternations" "$*" "$same"
for np in 1 $nps; do
    w=$(echo "${wall[$np]}" | median)
    m=$(echo "${merge[$np]}" | median)
    printf ',"np%s":{"wall_s_median":%s,"merge_s_median":%s,"speedup_wall":%.3f,"speedup_merge":%.3f,"peak_rss_mb":[%s]}' \
        "$np" "$w" "$m" "$(echo "$w1 / $w" | bc -l)" "$(echo "$m1 / $m" | bc -l)" "${rss[$np]}"
done
printf '}\n'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
