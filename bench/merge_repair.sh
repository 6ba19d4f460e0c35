#!/bin/bash
# bench/merge_repair.sh SYNCTRACE SYNCTRACE_GEN [ITERATIONS=250000,1000000] [ALTERNATIONS=3]
# — the repair (delta > 0) streaming against the in-memory reference
# (SYNCTRACE_REPAIR=memory), alternated in one run on the same traces:
# 2-rank rings whose drifts change faster than --drift-model line lets
# them (the shape of NetPIPE's traces), at each number of iterations.
# Each merge runs under GNU time for its peak RSS, with --no-causal (the
# index is measured elsewhere). Prints one JSON object: per size the
# events, the median peak RSS (MB) and seconds of each way, their ratios,
# whether the archives were identical in every run, and the peak RSS's
# growth per million events between the smallest and the largest size
# (flat: the events wait on disk).
set -euo pipefail
usage="usage: bench/merge_repair.sh SYNCTRACE SYNCTRACE_GEN [ITERATIONS,...] [ALTERNATIONS]"
bin=${1:?$usage}
gen=${2:?$usage}
sizes=${3:-250000,1000000}
alts=${4:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=()
for it in ${sizes//,/ }; do
    rm -rf "$tmp/raw"
    "$gen" "$tmp/raw" --ranks 2 --pattern ring --iterations "$it" --no-true-time --drift-slope 500 \
        --latency-ns 100 >/dev/null
    same=1
    for ((i = 0; i < alts; i++)); do
        for how in stream memory; do
            rm -rf "$tmp/$how"
            env SYNCTRACE_REPAIR=$([ $how = memory ] && echo memory || echo stream) /usr/bin/time -f '%M %e' \
                -o "$tmp/time" "$bin" merge "$tmp/raw" -o "$tmp/$how" --drift-model line --no-causal >/dev/null
            results+=("$it:$how:$(tr ' ' ':' <"$tmp/time")")
        done
        for f in "$tmp"/stream/traces/*.evt "$tmp/stream/rawview.map"; do
            cmp -s "$f" "$tmp/memory/${f#"$tmp"/stream/}" || same=0
        done
    done
    ev=$(/usr/bin/python3 -c "import json; d = json.load(open('$tmp/stream/report.json')); \
print(d['events'], int(d['repair']['applied']), d['repair']['disk_bytes'])")
    results+=("$it:facts:${ev// /:}:$same")
done
/usr/bin/python3 - "${results[@]}" <<'PY'
import json, statistics, sys
runs, facts = {}, {}
for r in sys.argv[1:]:
    f = r.split(':')
    if f[1] == 'facts':
        facts[int(f[0])] = {"events": int(f[2]), "repaired": f[3] == '1', "disk_bytes": int(f[4]),
                            "identical": f[5] == '1'}
    else:
        runs.setdefault(int(f[0]), {}).setdefault(f[1], []).append((int(f[2]), float(f[3])))
out = {"bench": "merge_repair", "sizes": []}
for it in sorted(runs):
    row = {"iterations": it, **facts[it]}
    for how in ("stream", "memory"):
        row[how] = {"peak_rss_mb_median": statistics.median(k for k, _ in runs[it][how]) / 1024,
                    "seconds_median": statistics.median(s for _, s in runs[it][how])}
    row["ratio_rss_stream_to_memory"] = row["stream"]["peak_rss_mb_median"] / row["memory"]["peak_rss_mb_median"]
    row["ratio_seconds_stream_to_memory"] = row["stream"]["seconds_median"] / row["memory"]["seconds_median"]
    out["sizes"].append(row)
a, b = out["sizes"][0], out["sizes"][-1]
if b["events"] > a["events"]:
    for how in ("stream", "memory"):
        out[how + "_mb_per_million_events"] = ((b[how]["peak_rss_mb_median"] - a[how]["peak_rss_mb_median"])
                                               / ((b["events"] - a["events"]) / 1e6))
print(json.dumps(out))
PY
