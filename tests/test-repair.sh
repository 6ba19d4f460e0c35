#!/bin/bash
# The repair (delta > 0) streams (tools/merge/clc_stream.c): its output is
# the in-memory controlled logical clock's (SYNCTRACE_REPAIR=memory, the
# reference), event for event, on every pattern the generator makes —
# point-to-point (ring, random with MPI_ANY_SOURCE, a stencil's
# non-blocking calls) and collectives (Reduce + Bcast trees, all-to-alls)
# — with the budget it gets from --sort-memory at its default and at its
# least (the sort of the events' roles then spills to disk, the windows
# per location shrink). Clocks two ranks to a node, drifts that change
# faster than --drift-model line lets them: every trace contradicts the
# model, so the repair runs and moves events.
. "$top_srcdir/tests/lib.sh"
plan 11
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)

json() { "$PYTHON3" -c "import json,sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
# same A B: the merged events, the raw-view map and the repair's figures agree
same() {
    local f
    for f in "$1"/traces/*.evt "$1/rawview.map"; do
        cmp -s "$f" "$2/${f#"$1"/}" || return 1
    done
    [ "$(json "$1/report.json" "[d['repair'][k] for k in ('events_moved', 'max_move_ns', 'backward_moved')], d['tachyons_after']")" \
        = "$(json "$2/report.json" "[d['repair'][k] for k in ('events_moved', 'max_move_ns', 'backward_moved')], d['tachyons_after']")" ]
}

for pat in ring random stencil2d tree alltoall; do
    "$GEN" "$tmp/$pat" --ranks 6 --ranks-per-node 2 --pattern "$pat" --iterations 3000 --drift-slope 3000 \
        --compute-us 100 --latency-ns 100 >/dev/null || { ok 1 "$pat: generated"; continue; }
    SYNCTRACE_REPAIR=memory "$ST" merge "$tmp/$pat" -o "$tmp/$pat.mem" --drift-model line >/dev/null 2>"$tmp/err"
    rc=$?
    "$ST" merge "$tmp/$pat" -o "$tmp/$pat.stream" --drift-model line >/dev/null 2>>"$tmp/err"
    rc=$((rc + $?))
    "$ST" merge "$tmp/$pat" -o "$tmp/$pat.small" --drift-model line --sort-memory 1 >/dev/null 2>>"$tmp/err"
    rc=$((rc + $?))
    moved=$(json "$tmp/$pat.stream/report.json" "d['repair']['events_moved'] if d['repair']['applied'] else 0")
    [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "${moved:-0}" -gt 0 ] && same "$tmp/$pat.mem" "$tmp/$pat.stream" \
        && same "$tmp/$pat.mem" "$tmp/$pat.small"
    ok $? "$pat: repaired ($moved events moved, $(json "$tmp/$pat.stream/report.json" "'held at most %d sends in flight and %d collectives open, %.1f MB on disk' % (d['repair']['max_sends_in_flight'], d['repair']['max_open_collectives'], d['repair']['disk_bytes'] / 1e6)")), the same archive streamed as in memory, with --sort-memory 1 too"
    [ "$(json "$tmp/$pat.stream/report.json" "d['tachyons_after'], d['truth']['error_max_ns'] > 0")" = "0 True" ]
    ok $? "$pat: no tachyon after, and the report's comparison with true time ran on the repaired times (error max $(json "$tmp/$pat.stream/report.json" "round(d['truth']['error_max_ns'])") ns)"
done

# The spill directory is where the repair's files go: one that cannot be
# written stops the merge with one line and no output.
mkdir "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" = 0 ]; then
    skip "root writes anywhere: no unwritable --spill-dir to try"
else
    "$ST" merge "$tmp/ring" -o "$tmp/ring.ro" --drift-model line --spill-dir "$tmp/ro" >/dev/null 2>"$tmp/ro.err"
    [ $? -ne 0 ] && [ "$(wc -l <"$tmp/ro.err")" = 1 ] && [ ! -e "$tmp/ring.ro" ]
    ok $? "an unwritable --spill-dir: one line, no output ($(cat "$tmp/ro.err"))"
fi
finish
