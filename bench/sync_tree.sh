#!/bin/bash
# bench/sync_tree.sh — the cost of a clock-synchronisation round against the
# number of clock domains, simulated by synctrace-gen (one domain per rank),
# and the accuracy the merge gets from the tree-composed offsets.
#
#   bench/sync_tree.sh BUILD_DIR [DOMAINS...]      (default: 16 128 1024)
#
# Per domain count, one JSON line: the tree's steps; the round's true length
# (first entry to last exit); the edges' exchanges added up, which is what a
# star around rank 0 (the previous scheme, and Fleury et al.'s) would
# serialise, so star_over_tree is the ratio in the same run; ns per step,
# which should stay flat; and, up to 1024 domains, the merge's largest error
# against the true offsets and whether every true offset is inside its bound.
set -eu
build=${1:?usage: bench/sync_tree.sh BUILD_DIR [DOMAINS...]}
shift
domains=${*:-16 128 1024}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sync-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for d in $domains; do
    "$build/synctrace-gen" "$tmp/t$d" --ranks "$d" --ranks-per-node 1 --pattern ring --iterations 2 \
        --offset-us 1000 --drift-ppm 50 --seed 5 >/dev/null
    merged=null inside=null
    if [ "$d" -le 1024 ]; then
        "$build/synctrace" merge "$tmp/t$d" -o "$tmp/m$d" --no-causal >/dev/null
        read -r merged inside < <(/usr/bin/python3 - "$tmp/m$d/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
flags = []
def walk(o):
    if isinstance(o, dict):
        if "true_inside_bounds" in o:
            flags.append(o["true_inside_bounds"])
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(r)
t = r.get("truth", {})
print(t.get("error_max_ns", "null"), "true" if flags and all(flags) else "false")
PY
)
    fi
    awk -v d="$d" -v merged="$merged" -v inside="$inside" '
        $1 == "sync.tree_steps" { steps = $2 }
        $1 == "generator.sync_round.0" {
            split($2, a, "="); split($3, b, "="); split($4, c, "=")
            len = a[2]; edges = b[2]; star = c[2] }
        END {
            printf "{\"bench\":\"sync_tree\",\"domains\":%d,\"steps\":%d,\"round_true_ns\":%d,", d, steps, len
            printf "\"star_true_ns\":%d,\"star_over_tree\":%.1f,\"ns_per_step\":%.0f,", star, star / len, len / steps
            printf "\"merge_max_error_ns\":%s,\"true_inside_bounds\":%s}\n", merged, inside }' "$tmp/t$d/run.meta"
    rm -rf "$tmp/t$d" "$tmp/m$d"
done
