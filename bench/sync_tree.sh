#!/bin/bash
# bench/sync_tree.sh — the cost of a clock-synchronisation round against the
# number of clock domains, simulated by synctrace-gen (one domain per rank),
# and the accuracy the merge gets from the tree-composed offsets.
#
#   bench/sync_tree.sh BUILD_DIR [DOMAINS...]      (default: 16 128 1024)
#
# Per domain count, one JSON line: the tree's steps; the round's true
# length (first entry to last exit); the edges' exchanges added up, which is what a
# star around rank 0 (the previous scheme, and Fleury et al.'s) would
# serialise, so star_over_tree is the ratio in the same run; ns per step,
# which should stay flat. Then the merge (all sizes; 10000 domains take ~3 GB
# and ~15 s here): its time and peak RSS; the pair precision from
# report.json, sampled above 2000 domains (how many pairs, from how many
# source clocks, and the time it took); the largest |offset - true offset|
# over the domains and the widest bound (hi - lo); whether every true offset
# lies inside its bounds; and errors_within_widths, whether every domain's
# |offset - true offset| is within its own bound's width (the recovered
# offsets match the generator's truth within the reported bounds). Exit
# status 1 if a true offset is outside its bounds.
set -eu
build=${1:?usage: bench/sync_tree.sh BUILD_DIR [DOMAINS...]}
shift
domains=${*:-16 128 1024 10000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sync-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
for d in $domains; do
    "$build/synctrace-gen" "$tmp/t$d" --ranks "$d" --ranks-per-node 1 --pattern ring --iterations 2 \
        --offset-us 1000 --drift-ppm 50 --seed 5 >/dev/null
    /usr/bin/time -f "%M %e" -o "$tmp/time" "$build/synctrace" merge "$tmp/t$d" -o "$tmp/m$d" --no-causal >/dev/null
    read -r rss_kb seconds <"$tmp/time"
    merge=$(/usr/bin/python3 - "$tmp/m$d/report.json" "$rss_kb" "$seconds" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r.get("pair_uncertainty_pairs", {})
doms = [x for x in r["domains"] if "true_offset_ns" in x]
inside = bool(doms) and all(x.get("true_inside_bounds") is True for x in doms)
err = max(abs(x["offset_ns"] - x["true_offset_ns"]) for x in doms)
width = max((x["hi_ns"] - x["lo_ns"]) for x in doms if x["hi_ns"] is not None)
within = all(x["hi_ns"] is not None and abs(x["offset_ns"] - x["true_offset_ns"]) <= x["hi_ns"] - x["lo_ns"]
             for x in doms)
num = lambda v: "null" if v is None else "%.3f" % v
print('"merge_seconds":%s,"merge_peak_rss_mb":%.1f,"precision":"%s","pairs":%d,"sources":%s,'
      '"pair_uncertainty_max_ns":%s,"pair_uncertainty_mean_ns":%s,"precision_seconds":%s,'
      '"merge_max_error_ns":%s,"max_offset_error_ns":%.3f,"max_bound_width_ns":%.3f,'
      '"true_inside_bounds":%s,"errors_within_widths":%s'
      % (sys.argv[3], int(sys.argv[2]) / 1024, p.get("method", "none"), p.get("pairs", 0),
         p.get("sources", "null"), num(r.get("pair_uncertainty_max_ns")), num(r.get("pair_uncertainty_mean_ns")),
         num(p.get("seconds")), num(r.get("truth", {}).get("error_max_ns")), err, width,
         "true" if inside else "false", "true" if within else "false"))
PY
)
    case $merge in *'"true_inside_bounds":true,"errors_within_widths":true'*) ;; *) status=1 ;; esac
    awk -v d="$d" -v merge="$merge" '
        $1 == "sync.tree_steps" { steps = $2 }
        $1 == "generator.sync_round.0" {
            split($2, a, "="); split($3, b, "="); split($4, c, "=")
            len = a[2]; edges = b[2]; star = c[2] }
        END {
            printf "{\"bench\":\"sync_tree\",\"domains\":%d,\"steps\":%d,\"round_true_ns\":%d,", d, steps, len
            printf "\"star_true_ns\":%d,\"star_over_tree\":%.1f,\"ns_per_step\":%.0f,", star, star / len, len / steps
            printf "%s}\n", merge }' "$tmp/t$d/run.meta"
    rm -rf "$tmp/t$d" "$tmp/m$d"
done
exit $status
