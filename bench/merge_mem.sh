#!/bin/bash
# bench/merge_mem.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR [ALTERNATIONS=3] [MERGE OPTIONS...]
# — the merge's peak memory and time, two builds alternated in one run (the
# machine is shared: compare medians and ratios, not single runs). Each
# merge runs under GNU time (/usr/bin/time) for its peak RSS. Prints one
# JSON object: events, per build the median peak RSS (MB), bytes per event
# (peak RSS / events, everything the process holds) and median seconds,
# and the median new/old ratios.
set -euo pipefail
old=${1:?usage: bench/merge_mem.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR [ALTERNATIONS] [OPTIONS...]}
new=${2:?usage: bench/merge_mem.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR [ALTERNATIONS] [OPTIONS...]}
raw=${3:?usage: bench/merge_mem.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR [ALTERNATIONS] [OPTIONS...]}
alts=${4:-3}
shift $(($# < 4 ? $# : 4))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=()
for ((i = 0; i < alts; i++)); do
    for which in old new; do
        bin=$old
        [ $which = new ] && bin=$new
        rm -rf "$tmp/out"
        /usr/bin/time -f '%M %e' -o "$tmp/time" "$bin" merge "$raw" -o "$tmp/out" "$@" >/dev/null
        runs+=("$which:$(cat "$tmp/time" | tr ' ' ':')")
    done
done
events=$(/usr/bin/python3 -c "import json; print(json.load(open('$tmp/out/report.json'))['events'])")
/usr/bin/python3 - "$events" "$*" "${runs[@]}" <<'PY'
import json, statistics, sys
events, options = int(sys.argv[1]), sys.argv[2]
kb = {"old": [], "new": []}; s = {"old": [], "new": []}
for r in sys.argv[3:]:
    which, k, sec = r.split(':')
    kb[which].append(int(k)); s[which].append(float(sec))
out = {"bench": "merge_mem", "events": events, "options": options, "alternations": len(kb["old"])}
for w in ("old", "new"):
    out[w] = {"peak_rss_mb_median": statistics.median(kb[w]) / 1024,
              "bytes_per_event": statistics.median(kb[w]) * 1024 / events,
              "seconds_median": statistics.median(s[w]), "peak_rss_kb": kb[w], "seconds": s[w]}
out["ratio_rss_new_to_old_median"] = statistics.median([n / o for n, o in zip(kb["new"], kb["old"])])
out["ratio_seconds_new_to_old_median"] = statistics.median([n / o for n, o in zip(s["new"], s["old"])])
print(json.dumps(out))
PY
