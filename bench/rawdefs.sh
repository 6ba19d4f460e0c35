#!/usr/bin/env bash
# rawdefs.sh — how the raw definitions grow with the number of ranks, and
# what the merge costs, for one or more builds (e.g. before and after a
# change of the raw format):
#
#   bench/rawdefs.sh BUILD_DIR [BUILD_DIR...]
#
# For each P in RANKS (default "1000 4000") and each build, synctrace-gen
# writes a trace of P ranks (--pattern ring --iterations 2 --seed 1); its
# definition bytes are counted (global: rank-NNNNNN.def; local:
# rank-NNNNNN/*.def; members: rank-NNNNNN.members, when the format has
# them), then `synctrace merge` runs ROUNDS times (default 2), the builds
# alternating so that load hits them alike, timed with /usr/bin/time
# (seconds, peak RSS). The builds' merged archives must be the same event
# for event (otf2-print, definitions and events). Prints one JSON object per
# (P, build) on stdout.
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [BUILD_DIR...]" >&2
    exit 2
fi
for b in "$@"; do
    [ -x "$b/synctrace" ] && [ -x "$b/synctrace-gen" ] || { echo "$0: $b has no synctrace and synctrace-gen" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is needed (Debian package time)" >&2; exit 2; }
RANKS=${RANKS:-1000 4000}
ROUNDS=${ROUNDS:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-rawdefs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

sum_sizes() { find "$@" -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

for p in $RANKS; do
    k=0
    for b in "$@"; do
        d="$WORK/g$k"
        rm -rf "$d"
        "$b/synctrace-gen" "$d" --ranks "$p" --pattern ring --iterations 2 --seed 1 >/dev/null
        glob[$k]=$(sum_sizes "$d" -maxdepth 1 -name 'rank-*.def')
        loc[$k]=$(sum_sizes "$d" -mindepth 2 -name '*.def')
        mem[$k]=$(sum_sizes "$d" -maxdepth 1 -name 'rank-*.members')
        times[$k]="" rss[$k]=""
        k=$((k + 1))
    done
    for r in $(seq "$ROUNDS"); do
        k=0
        for b in "$@"; do
            rm -rf "$WORK/m$k"
            /usr/bin/time -f "%e %M" -o "$WORK/time" "$b/synctrace" merge "$WORK/g$k" -o "$WORK/m$k" >/dev/null 2>&1
            read -r s m <"$WORK/time"
            times[$k]="${times[$k]}${times[$k]:+, }$s" rss[$k]="${rss[$k]}${rss[$k]:+, }$m"
            k=$((k + 1))
        done
    done
    otf2-print "$WORK/m0/traces.otf2" >"$WORK/e0" 2>&1; otf2-print -G "$WORK/m0/traces.otf2" >"$WORK/d0" 2>&1
    k=0
    for b in "$@"; do
        otf2-print "$WORK/m$k/traces.otf2" >"$WORK/e" 2>&1; otf2-print -G "$WORK/m$k/traces.otf2" >"$WORK/d" 2>&1
        same=true
        cmp -s "$WORK/e0" "$WORK/e" && cmp -s "$WORK/d0" "$WORK/d" || same=false
        total=$((glob[k] + loc[k] + mem[k]))
        printf '{"ranks": %d, "build": "%s", "global_def_bytes": %d, "local_def_bytes": %d, "members_bytes": %d, ' \
            "$p" "$b" "${glob[$k]}" "${loc[$k]}" "${mem[$k]}"
        printf '"total_bytes": %d, "bytes_per_rank": %d, "merge_s": [%s], "merge_rss_kb": [%s], "merged_same_as_first": %s}\n' \
            "$total" "$((total / p))" "${times[$k]}" "${rss[$k]}" "$same"
        k=$((k + 1))
    done
done
