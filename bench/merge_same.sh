#!/bin/bash
# bench/merge_same.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR... — proof that a
# change to the merge's internals changed none of its output: every RAW_DIR
# is merged by both binaries (default options: archive, report, causal
# index) and the two output directories must hold the same files, byte for
# byte, except what is timing or build identity:
#   report.json  its "seconds" entries (timings) and its "match_sorts" line
#                (how much the match's sorts spilled, which depends on
#                --sort-memory, not on the result) and "hubs_beside_graph"
#                line (how the solver kept many collectives' hubs beside
#                its graph, not what it found: tools/clock/hubstore.h) and
#                the causal index's "build_threads" (how many of its window
#                passes ran at once);
#   report.txt   its timing lines (the first line's "(N s)", "time ...");
#   causal.idx   its header's fingerprint, checksums and size fields
#                (bytes 168..255, as tests/test-causal-rebuild.sh compares);
#   traces.otf2  the anchor's random trace identifier (compared as
#                `otf2-print -A` shows it, without that line).
# MERGE_OPTIONS adds options to both merges (e.g. --event-memory 0, which
# sets every event aside). Prints one line per trace ("same" or what
# differs); exits 1 if any differs.
set -uo pipefail
old=${1:?usage: bench/merge_same.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR...}
new=${2:?usage: bench/merge_same.sh OLD_SYNCTRACE NEW_SYNCTRACE RAW_DIR...}
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip_json() { sed -E 's/"seconds": (\{[^}]*\}|[0-9.e+-]+)/"seconds": _/g; s/, "build_threads": [0-9]+//; /"match_sorts"/d; /"hubs_beside_graph"/d' "$1"; }
strip_txt() { sed -E -e '1s/\([0-9.]+ s\)$/(_ s)/' -e '/^  time  /d' "$1"; }
same_anchor() {
    cmp -s <(otf2-print -A "$1" | grep -v '^Trace identifier') <(otf2-print -A "$2" | grep -v '^Trace identifier')
}
same_index() {
    [ "$(stat -c %s "$1")" = "$(stat -c %s "$2")" ] && cmp -s -n 168 "$1" "$2" && cmp -s -i 256 "$1" "$2"
}
status=0
for raw in "$@"; do
    rm -rf "$tmp/old" "$tmp/new"
    # shellcheck disable=SC2086
    "$old" merge "$raw" -o "$tmp/old" ${MERGE_OPTIONS:-} >/dev/null 2>"$tmp/old.err"; rc_old=$?
    # shellcheck disable=SC2086
    "$new" merge "$raw" -o "$tmp/new" ${MERGE_OPTIONS:-} >/dev/null 2>"$tmp/new.err"; rc_new=$?
    if [ $rc_old -ne 0 ] || [ $rc_new -ne 0 ]; then
        # a trace both refuse the same way is the same result
        if [ $rc_old = $rc_new ] && [ ! -e "$tmp/old" ] && [ ! -e "$tmp/new" ] && cmp -s "$tmp/old.err" "$tmp/new.err"; then
            echo "$raw: same (both refuse: $(head -1 "$tmp/old.err"))"
        else
            echo "$raw: DIFFERENT: one merge failed ($(head -1 "$tmp/old.err") | $(head -1 "$tmp/new.err"))"
            status=1
        fi
        continue
    fi
    diffs=()
    if [ "$(cd "$tmp/old" && find . -type f | sort)" != "$(cd "$tmp/new" && find . -type f | sort)" ]; then
        diffs+=("file lists")
    fi
    nfiles=0
    while IFS= read -r f; do
        nfiles=$((nfiles + 1))
        a=$tmp/old/$f b=$tmp/new/$f
        [ -f "$b" ] || continue
        case $f in
        ./report.json) cmp -s <(strip_json "$a") <(strip_json "$b") || diffs+=("$f") ;;
        ./report.txt) cmp -s <(strip_txt "$a") <(strip_txt "$b") || diffs+=("$f") ;;
        ./causal.idx) same_index "$a" "$b" || diffs+=("$f") ;;
        ./traces.otf2) same_anchor "$a" "$b" || diffs+=("$f") ;;
        *) cmp -s "$a" "$b" || diffs+=("$f") ;;
        esac
    done < <(cd "$tmp/old" && find . -type f | sort)
    if [ ${#diffs[@]} -eq 0 ]; then
        echo "$raw: same ($nfiles files, $(grep -o '"events": [0-9]*' "$tmp/new/report.json" | head -1))"
    else
        echo "$raw: DIFFERENT: ${diffs[*]}"
        status=1
    fi
done
exit $status
