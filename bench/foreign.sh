#!/bin/bash
# bench/foreign.sh [ANCHOR...] [ALTERNATIONS=3 in $ALTS] — `synctrace merge`
# of a foreign OTF2 archive (convert, merge, copy: tools/foreign) against a
# plain read-and-rewrite of the same archive (tests/otf2copy_run: the same
# OTF2 reader and writer, every record, times unchanged), alternated in one
# run; medians of the per-alternation times and the peak RSS of each. The
# merge is timed without the causal index (--no-causal: the synchronisation
# and the copy), and once more with it (the default), apart. The plain copy
# is single-threaded, as a plain OTF2 rewrite is, while the merge uses every
# core (--jobs): copy_parallel_s is the plain copy on as many threads (one
# reader each, otf2copy_run --jobs), and ratio_parallel the merge against it.
# Without arguments: the reference Score-P traces in tests/data/scorep, and
# a larger archive made here (synctrace-gen, 16 ranks, merged by us: an
# OTF2 archive without ClockOffsets). One JSON line per archive.
# Then, where mpirun is (NP=K processes, default 2; NP=1 skips it): the
# merge by one process against `mpirun -np K` of it, alternated, one more
# JSON line per archive ("mpirun": K, one_s, np_s, speedup = one_s / np_s).
# Needs BUILD (the build directory; default: the directory above this script).
set -euo pipefail
build=${BUILD:-$(cd "$(dirname "$0")/.." && pwd)}
src=$(cd "$(dirname "$0")/.." && pwd)
alts=${ALTS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
    for t in stencil hybrid; do inputs+=("$src/tests/data/scorep/$t/scorep/traces.otf2"); done
    "$build/synctrace-gen" "$tmp/gen" --ranks 16 --pattern stencil2d --iterations 20000 >/dev/null
    "$build/synctrace" merge "$tmp/gen" -o "$tmp/genm" --no-causal >/dev/null
    inputs+=("$tmp/genm/traces.otf2")
fi
for anchor in "${inputs[@]}"; do
    copy=() merge=() full=() copy_kb=() merge_kb=() pcopy=()
    for ((i = 0; i < alts; i++)); do
        rm -rf "$tmp/c" "$tmp/m"
        mkdir "$tmp/c"
        t0=$EPOCHREALTIME
        /usr/bin/time -f "%M" -o "$tmp/t" "$build/tests/otf2copy_run" "$anchor" "$tmp/c" >/dev/null
        t1=$EPOCHREALTIME
        copy+=("$t0:$t1") copy_kb+=("$(cat "$tmp/t")")
        rm -rf "$tmp/c"
        mkdir "$tmp/c"
        t0=$EPOCHREALTIME
        "$build/tests/otf2copy_run" "$anchor" "$tmp/c" --jobs "$(nproc)" >/dev/null
        t1=$EPOCHREALTIME
        pcopy+=("$t0:$t1")
        /usr/bin/time -f "%M" -o "$tmp/t" "$build/synctrace" merge "$anchor" -o "$tmp/m" --no-causal >"$tmp/m.log"
        t2=$EPOCHREALTIME
        merge+=("$t1:$t2") merge_kb+=("$(cat "$tmp/t")")
        rm -rf "$tmp/f"
        "$build/synctrace" merge "$anchor" -o "$tmp/f" >/dev/null
        t3=$EPOCHREALTIME
        full+=("$t2:$t3")
    done
    python3 - "$anchor" "$tmp/m/input.json" "${copy[*]}" "${merge[*]}" "${copy_kb[*]}" "${merge_kb[*]}" "${full[*]}" "${pcopy[*]}" <<'PY'
import json, statistics, sys
anchor, info = sys.argv[1], json.load(open(sys.argv[2]))
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
c, m = [span(x) for x in sys.argv[3].split()], [span(x) for x in sys.argv[4].split()]
ck, mk = [int(x) for x in sys.argv[5].split()], [int(x) for x in sys.argv[6].split()]
fs = statistics.median([span(x) for x in sys.argv[7].split()])
ps = statistics.median([span(x) for x in sys.argv[8].split()])
cs, ms = statistics.median(c), statistics.median(m)
print(json.dumps({"archive": anchor, "kind": info["kind"], "events": info["events"],
                  "events_modelled": info["events_modelled"], "copy_s": cs, "merge_s": ms,
                  "ratio": round(ms / cs, 3) if cs > 0 else None, "copy_parallel_s": ps,
                  "ratio_parallel": round(ms / ps, 3) if ps > 0 else None,
                  "merge_ns_per_event": round(ms / info["events"] * 1e9, 1),
                  "with_causal_index_s": fs, "copy_peak_kb": max(ck), "merge_peak_kb": max(mk)}))
PY
done

np=${NP:-2}
if [ "$np" -gt 1 ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo} OMPI_MCA_oob_tcp_if_include=${OMPI_MCA_oob_tcp_if_include:-lo}
    export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
    for anchor in "${inputs[@]}"; do
        one=() par=()
        for ((i = 0; i < alts; i++)); do
            rm -rf "$tmp/o" "$tmp/p"
            t0=$EPOCHREALTIME
            "$build/synctrace" merge "$anchor" -o "$tmp/o" --no-causal >/dev/null
            t1=$EPOCHREALTIME
            mpirun --allow-run-as-root --oversubscribe -np "$np" "$build/synctrace" merge "$anchor" -o "$tmp/p" \
                --no-causal >/dev/null
            t2=$EPOCHREALTIME
            one+=("$t0:$t1") par+=("$t1:$t2")
        done
        python3 - "$anchor" "$tmp/o/input.json" "$np" "${one[*]}" "${par[*]}" <<'PY'
import json, statistics, sys
anchor, info, np = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
span = lambda s: float(s.split(':')[1]) - float(s.split(':')[0])
o = statistics.median([span(x) for x in sys.argv[4].split()])
p = statistics.median([span(x) for x in sys.argv[5].split()])
print(json.dumps({"archive": anchor, "events": info["events"], "mpirun": np, "one_s": round(o, 3),
                  "np_s": round(p, 3), "speedup": round(o / p, 3) if p > 0 else None}))
PY
    done
fi
