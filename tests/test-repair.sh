#!/bin/bash
# The repair (delta > 0) streams (tools/clc/clc_stream.c): its output is
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
plan 12
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

# The repair's files go to --spill-dir: one that cannot take them (a
# 500 KB file-size limit, below the repair's files and above the archive's)
# stops the merge with one line naming it, exit 1, no output, nothing left
# in the spill directory.
# (Without true times: those go to --spill-dir as they are read, first.)
mkdir "$tmp/spill"
"$GEN" "$tmp/ring_nt" --ranks 6 --ranks-per-node 2 --pattern ring --iterations 3000 --drift-slope 3000 \
    --compute-us 100 --latency-ns 100 --no-true-time >/dev/null
(ulimit -f 500; exec "$ST" merge "$tmp/ring_nt" -o "$tmp/ring.full" --drift-model line --no-causal \
    --spill-dir "$tmp/spill") >/dev/null 2>"$tmp/full.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] \
    && grep -q "^synctrace merge: repairing the contradicted times: clc: writing a file in $tmp/spill: File too large$" \
        "$tmp/full.err" \
    && [ -z "$(ls -A "$tmp" | grep "^ring.full")" ] && [ -z "$(ls -A "$tmp/spill")" ]
ok $? "the repair's files over a file-size limit: exit $rc, one line, no output, nothing left ($(head -1 "$tmp/full.err"))"

# A read of the repaired times that fails once the repair is done (EIO
# from tests/shims/pread_fails.c on --spill-dir, whose last reads are of the
# repaired times: counted in a first run) stops the merge with one line
# naming the spill directory, exit 1, no output: a time the failed read
# gave as 0 is never written.
mkdir "$tmp/spill2"
eio() {   # eio OUT [shim variables...]
    local out=$1
    shift
    env PREAD_FAILS_DIR="$tmp/spill2" LD_PRELOAD="$tmp/pf.so" "$@" "$ST" merge "$tmp/ring_nt" -o "$out" \
        --drift-model line --no-causal --jobs 1 --spill-dir "$tmp/spill2" >/dev/null
}
if cc -shared -fPIC -O1 -o "$tmp/pf.so" "$top_srcdir/tests/shims/pread_fails.c" -ldl 2>"$tmp/cc.err"; then
    eio "$tmp/ring.count" PREAD_FAILS_COUNT="$tmp/count" 2>"$tmp/count.err"
    rc_count=$?
    n=$(cat "$tmp/count" 2>/dev/null || echo 0)
    eio "$tmp/ring.eio" PREAD_FAILS_AFTER=$((n - 1)) 2>"$tmp/eio.err"
    rc=$?
    [ $rc_count = 0 ] && [ "$n" -gt 1 ] && [ $rc = 1 ] && [ "$(wc -l <"$tmp/eio.err")" = 1 ] \
        && grep -q "^synctrace merge: reading the repaired times back from their file in $tmp/spill2: Input/output error$" \
            "$tmp/eio.err" \
        && [ -z "$(ls -A "$tmp" | grep "^ring.eio")" ] && [ -z "$(ls -A "$tmp/spill2")" ]
    ok $? "a read of the repaired times fails (the last of $n reads in --spill-dir): exit $rc, one line, no output ($(head -1 "$tmp/eio.err"))"
else
    ok 1 "the shim tests/shims/pread_fails.c builds: $(head -1 "$tmp/cc.err")"
fi
finish
