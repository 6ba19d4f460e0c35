#!/bin/bash
# bench/causal_threads.sh RAW_DIR [ALTERNATIONS=3] [JOBS="1 2"] [MERGE OPTIONS...]
#
# The causal index's build with its window passes one at a time and at once
# (tools/causal/causal_passes.c): `synctrace merge --jobs J` for each J,
# alternated in one run on the same raw trace. Prints one JSON object: per
# J the median wall time, the merge's own time, the index's build time and
# how long the merge waited for it (report.json), the build's passes and
# how many ran at once, the peak RSS (MB); the speed-ups over the first J;
# and same_output (every output the first J's, file for file, as
# tests/lib.sh merged_differences compares). Environment: SYNCTRACE
# (default build/synctrace), BENCH_DIR (scratch, default a temporary
# directory), SYNCTRACE_CAUSAL_MEMORY_MB (the vectors' budget per pass).
set -u
raw=${1:?usage: bench/causal_threads.sh RAW_DIR [ALTERNATIONS] [JOBS] [MERGE OPTIONS...]}
alternations=${2:-3}
jobs_list=${3:-"1 2"}
shift $(($# < 3 ? $# : 3))
here=$(cd "$(dirname "$0")/.." && pwd)
st=${SYNCTRACE:-$here/build/synctrace}
work=${BENCH_DIR:-$(mktemp -d)}
top_srcdir=$here top_builddir=$(dirname "$st") . "$here/tests/lib.sh"
set +u

now() { date +%s.%N; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() {   # field OUT EXPRESSION: a value of OUT/report.json
    python3 -c "import json,sys; r=json.load(open(sys.argv[1] + '/report.json')); c=r['causal_index']; print($2)" "$1"
}

declare -A wall merge build waited rss passes threads
same=true
first=""
for a in $(seq "$alternations"); do
    for j in $jobs_list; do
        [ -n "$first" ] || first=$j
        out=$work/out.$j
        rm -rf "$out"
        t0=$(now)
        /usr/bin/time -f %M -o "$work/peak.$j" "$st" merge "$raw" -o "$out" --jobs "$j" "$@" >/dev/null 2>"$work/err.$j"
        rc=$?
        t1=$(now)
        if [ $rc != 0 ]; then
            echo "bench/causal_threads.sh: --jobs $j failed: $(head -1 "$work/err.$j")" >&2
            exit 1
        fi
        wall[$j]="${wall[$j]} $(echo "$t1 - $t0" | bc)"
        merge[$j]="${merge[$j]} $(field "$out" "r['seconds']['total']")"
        build[$j]="${build[$j]} $(field "$out" "c['seconds']['build']")"
        waited[$j]="${waited[$j]} $(field "$out" "c['seconds']['merge_waited']")"
        rss[$j]="${rss[$j]} $(( $(cat "$work/peak.$j") / 1024 ))"
        passes[$j]=$(field "$out" "c['build_passes']")
        threads[$j]=$(field "$out" "c['build_threads']")
        if [ "$j" != "$first" ]; then
            diff=$(merged_differences "$work/out.$first" "$out" | tr '\n' ' ')
            [ -z "$diff" ] || { same=false; echo "bench/causal_threads.sh: --jobs $j differs: $diff" >&2; }
        fi
    done
done
events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$work/out.$first/report.json")
{
    printf '{"bench":"causal_threads","raw":"%s","events":%s,"alternations":%s,"options":"%s","same_output":%s' \
        "$raw" "$events" "$alternations" "$*" "$same"
    w1=$(echo "${wall[$first]}" | median)
    b1=$(echo "${build[$first]}" | median)
    for j in $jobs_list; do
        w=$(echo "${wall[$j]}" | median)
        b=$(echo "${build[$j]}" | median)
        printf ',"jobs%s":{"wall_s_median":%s,"merge_s_median":%s,"build_s_median":%s,"merge_waited_s_median":%s,' \
            "$j" "$w" "$(echo "${merge[$j]}" | median)" "$b" "$(echo "${waited[$j]}" | median)"
        printf '"passes":%s,"passes_at_once":%s,"peak_rss_mb_median":%s,"speedup_wall":%.3f,"speedup_build":%.3f}' \
            "${passes[$j]}" "${threads[$j]}" "$(echo "${rss[$j]}" | median)" \
            "$(echo "$w1 / $w" | bc -l)" "$(echo "$b1 / $b" | bc -l)"
    done
    printf '}\n'
}
[ -n "${BENCH_DIR:-}" ] || rm -rf "$work"
$same
