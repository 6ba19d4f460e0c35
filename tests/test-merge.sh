#!/bin/bash
# synctrace merge on traced MPI runs with injected skew (ground truth):
# zero tachyons and ordered collectives after the merge, every true offset
# inside its reported bounds, no constraint the truth breaks, readable by
# otf2-print and the Python otf2 reader; bad input gets a one-line error and
# a non-zero exit; the raw trace is never modified.
. "$top_srcdir/tests/lib.sh"
plan 35
tmp=$(scratch)
stencil="$top_builddir/examples/stencil"
json() { "${PYTHON3:-python3}" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }

check_merge() {   # check_merge RAW OUT LABEL
    local raw=$1 out=$2 label=$3
    "$SYNCTRACE_BIN" merge "$raw" -o "$out" >"$out.stdout" 2>"$out.stderr"
    ok $? "$label: merge succeeds ($(head -1 "$out.stdout"))"
    local r="$out/report.json"
    diag "$label: after the merge: tachyons, latency, non-monotonic, collective-order violations, delta = $(json "$r" "(d['tachyons_after'], d['latency_violations_after'], d['nonmonotonic_after'], d['collective_order_violations_after'], d['delta_ns'])")"
    ok $([ "$(json "$r" "d['tachyons_after'] + d['latency_violations_after'] + d['nonmonotonic_after'] + d['collective_order_violations_after']")" = 0 ]; echo $?) \
        "$label: no tachyon, latency or order violation after the merge (raw: $(json "$r" "d['tachyons_raw']") tachyons)"
    ok $([ "$(json "$r" "d['truth']['domains_inside_bounds'] == len(d['domains'])")" = True ]; echo $?) \
        "$label: every true offset lies inside its reported bounds"
    ok $([ "$(json "$r" "d['truth']['messages_violated_by_truth'] + d['truth']['collectives_violated_by_truth'] + d['unmatched_sends'] + d['unmatched_receives']")" = 0 ]; echo $?) \
        "$label: every message matched, and no constraint contradicts the true times"
    diag "$label: accuracy $(json "$r" "'max %.0f ns, median %.0f ns; interpolated ClockOffsets max %.0f, median %.0f' % (d['truth']['error_max_ns'], d['truth']['error_median_ns'], d['truth']['interpolated_error_max_ns'], d['truth']['interpolated_error_median_ns'])")"
}

raw_sum() { find "$1" -type f -exec md5sum {} + | sort | md5sum; }

SYNCTRACE_SKEW=seed=11,offset_us=1000,drift_ppm=50 run_traced "$tmp/a" 4 "$stencil" -i 200 >/dev/null
ok $? "stencil traced with skew on 4 ranks"
before=$(raw_sum "$tmp/a")
check_merge "$tmp/a" "$tmp/a.out" "stencil"

events=$(json "$tmp/a.out/report.json" "d['events']")
printed=$(otf2-print "$tmp/a.out/traces.otf2" 2>"$tmp/print.err" | grep -cE '^[A-Z_]+ ')
ok $([ "$printed" -eq "$events" ] && [ ! -s "$tmp/print.err" ]; echo $?) "otf2-print reads all $printed events, without complaint"
pyotf2=""
for p in python3 /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
if [ -n "$pyotf2" ]; then
    "$pyotf2" - "$tmp/a.out/traces.otf2" >"$tmp/py.out" <<'PY'
import sys, otf2
with otf2.reader.open(sys.argv[1]) as t:
    last, bad, n = {}, 0, 0
    for loc, ev in t.events:
        n += 1
        if ev.time < last.get(loc, 0): bad += 1
        last[loc] = ev.time
    print(n, bad, t.definitions.clock_properties.timer_resolution)
PY
    read -r pn pbad pres <"$tmp/py.out"
    ok $([ "$pn" -eq "$events" ] && [ "$pbad" -eq 0 ] && [ "$pres" -eq 1000000000 ]; echo $?) \
        "Python otf2 reader: $pn events, non-decreasing per location, 1 ns resolution"
else
    skip "python3-otf2 not installed"
fi
ok $([ "$(raw_sum "$tmp/a")" = "$before" ]; echo $?) "the raw trace is not modified"

# Periodic sync: more rounds, drift corrected between them.
periodic=$(build_mpi mpi_periodic "$tmp")
SYNCTRACE_SKEW=seed=12,offset_us=1000,drift_ppm=50 SYNCTRACE_SYNC=init,finalize,periodic SYNCTRACE_SYNC_INTERVAL=0.25 \
    run_traced "$tmp/p" 4 "$periodic" >/dev/null
ok $? "ring + allreduce traced with periodic sync"
check_merge "$tmp/p" "$tmp/p.out" "periodic"

"$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/a.out" >/dev/null 2>"$tmp/e1"
ok $([ $? -ne 0 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] && grep -q "exists" "$tmp/e1"; echo $?) \
    "an existing output is not overwritten without --force: $(cat "$tmp/e1")"
"$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/a.out" --force >/dev/null 2>&1 && [ -f "$tmp/a.out/traces.otf2" ] && ! ls -d "$tmp"/a.out.tmp-* "$tmp"/a.out.old-* 2>/dev/null | grep -q .
ok $? "--force replaces it, leaving no temporary directory behind"
# A merge that fails after reading the trace (the reference is checked
# against the ranks read) leaves an existing OUT as it was, --force or not.
kept=$(raw_sum "$tmp/a.out")
"$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/a.out" --force --reference 4 >"$tmp/o2" 2>"$tmp/e2"
ok $([ $? -eq 1 ] && [ "$(wc -l <"$tmp/e2")" -eq 1 ] && grep -q "reference 4: the trace has ranks 0 to 3" "$tmp/e2" \
     && [ ! -s "$tmp/o2" ] && [ "$(raw_sum "$tmp/a.out")" = "$kept" ] \
     && ! ls -d "$tmp"/a.out.tmp-* "$tmp"/a.out.old-* 2>/dev/null | grep -q .; echo $?) \
    "a failed merge with --force leaves the existing output as it was: $(cat "$tmp/e2")"

bad_input() {   # bad_input LABEL RAWDIR EXPECTED-WORD
    "$SYNCTRACE_BIN" merge "$2" -o "$tmp/bad.out" >/dev/null 2>"$tmp/err"
    local rc=$?
    ok $([ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$3" "$tmp/err" && [ ! -e "$tmp/bad.out" ]; echo $?) \
        "$1: one-line error, no output ($(cat "$tmp/err"))"
    rm -rf "$tmp/bad.out"   # a wrongly accepted input must not fail the cases after it
}
bad_input "missing directory" "$tmp/nonexistent" "No such file"
mkdir -p "$tmp/empty"
bad_input "directory without archives" "$tmp/empty" "no rank archives"
cp -r "$tmp/a" "$tmp/trunc"
f=$(ls "$tmp"/trunc/rank-000002/*.evt | head -1)
truncate -s 100 "$f"
bad_input "truncated event file" "$tmp/trunc" "rank-000002"
cp -r "$tmp/a" "$tmp/corrupt"
printf 'garbage' | dd of="$tmp/corrupt/rank-000001.def" bs=1 seek=40 conv=notrunc 2>/dev/null
bad_input "corrupt definitions" "$tmp/corrupt" "rank-000001"
cp -r "$tmp/a" "$tmp/mixed"
for x in .otf2 .def .members .sum; do cp "$tmp/p/rank-000003$x" "$tmp/mixed/rank-000003$x"; done
rm -rf "$tmp/mixed/rank-000003" && cp -r "$tmp/p/rank-000003" "$tmp/mixed/"
bad_input "archives from different runs" "$tmp/mixed" "different runs"
cp -r "$tmp/a" "$tmp/missing" && rm -rf "$tmp/missing/rank-000001"*
bad_input "a missing rank" "$tmp/missing" "rank"

# --jobs only changes who reads: the merged archive is the same byte for byte.
"$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/j1" --jobs 1 >/dev/null 2>&1 && "$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/j3" --jobs 3 >/dev/null 2>&1
ok $? "merge with --jobs 1 and --jobs 3 succeeds"
cmp -s "$tmp/j1/traces.def" "$tmp/j3/traces.def" && diff -r "$tmp/j1/traces" "$tmp/j3/traces" >/dev/null
ok $? "--jobs 1 and --jobs 3 write identical archives"

# Drift refined from the events: sync rounds drowned in latency noise give
# drift estimates too uncertain to use; the events then contradict a model
# without drift, and the refinement must remove the contradiction.
"$top_builddir/synctrace-gen" "$tmp/noisy" --ranks 8 --pattern ring --iterations 400 --drift-ppm 150 \
    --latency-ns 200:50000 --seed 4 >/dev/null 2>&1
"$SYNCTRACE_BIN" merge "$tmp/noisy" -o "$tmp/noisy.out" >/dev/null 2>&1
ok $([ "$(json "$tmp/noisy.out/report.json" "d['drift_refinement_passes'] >= 1 and d['delta_ns'] == 0 and d['tachyons_after'] == 0 and d['truth']['domains_inside_bounds'] == len(d['domains'])")" = True ]; echo $?) \
    "noisy sync rounds: drift refined from the events, delta 0, no tachyon, truth inside the bounds"
"$SYNCTRACE_BIN" merge "$tmp/noisy" -o "$tmp/noisy.flat" --no-drift >/dev/null 2>&1
ok $([ "$(json "$tmp/noisy.flat/report.json" "d['delta_ns'] > 0")" = True ]; echo $?) \
    "without drift correction the same events contradict each other (delta $(json "$tmp/noisy.flat/report.json" "round(d['delta_ns'])") ns): the refinement is what fixed it"

# Drift that changes during the run (a warming node): one drift per clock
# cannot fit it, a drift and an offset per span between sync rounds can.
# Checked on the written archive by an independent reader (merged_check.py).
"$top_builddir/synctrace-gen" "$tmp/warm" --ranks 8 --pattern stencil2d --iterations 500 --compute-us 1000 \
    --sync-rounds 12 --drift-slope 30 --seed 3 >/dev/null 2>&1
"$SYNCTRACE_BIN" merge "$tmp/warm" -o "$tmp/warm.seg" >/dev/null 2>&1
ok $([ "$(json "$tmp/warm.seg/report.json" "d['drift_model'].startswith('segments') and d['delta_ns'] == 0 and d['tachyons_after'] == 0 and d['truth']['domains_inside_bounds'] == 8 and [len(x['segments']) for x in d['domains']] == [1] + [11] * 7")" = True ]; echo $?) \
    "changing drift: one drift per clock is contradicted, so the clocks are cut at their sync rounds: 11 segments per clock, delta 0, no tachyon, every segment's true offset inside its bounds"
checked() {   # the independent reader needs python3-otf2 (pyotf2, found above)
    if [ -n "$pyotf2" ]; then "$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" "$1/traces.otf2" 2>&1 | tail -1
    else echo "no python3-otf2"; fi
}
line=$(checked "$tmp/warm.seg")
ok $(echo "$line" | grep -q "messages $(json "$tmp/warm.seg/report.json" "d['messages']") tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0"; echo $?) \
    "changing drift, segments: the written archive, read independently: $line"
# Segments can close the gap between the last event of one and the first of
# the next: the raw-view map (for the HTML export) steps there.
"$SYNCTRACE_BIN" dump "$tmp/warm" >"$tmp/warm.dump" 2>/dev/null
if [ -n "$pyotf2" ]; then
    rv=$("$pyotf2" "$top_srcdir/tests/checkers/rawview_check.py" "$tmp/warm.dump" "$tmp/warm.seg/traces.otf2" "$tmp/warm.seg/rawview.map" 2>&1)
    ok $(! echo "$rv" | grep -qv '^ok'; echo $?) "changing drift, segments: the raw-view map holds every event ($(echo "$rv" | sed -n 2p | sed 's/^ok - //'))"
else
    skip "python3-otf2 not installed"
fi
"$SYNCTRACE_BIN" merge "$tmp/warm" -o "$tmp/warm.line" --drift-model line >/dev/null 2>&1
line=$(checked "$tmp/warm.line")
# The wrong model contradicts the events: the solve relaxes by delta, and the
# repair stage (controlled logical clock) moves just enough events that no
# message is received before it was sent, checked by an independent reader.
ok $([ "$(json "$tmp/warm.line/report.json" "d['delta_ns'] > 100 and d['repair']['applied'] and d['repair']['events_moved'] > 0")" = True ] \
     && echo "$line" | grep -q "tachyons 0 nonmonotonic 0"; echo $?) \
    "changing drift, one line per clock: contradictions (delta $(json "$tmp/warm.line/report.json" "round(d['delta_ns'])") ns) repaired: $(json "$tmp/warm.line/report.json" "d['repair']['events_moved']") events moved by up to $(json "$tmp/warm.line/report.json" "round(d['repair']['max_move_ns'])") ns, no tachyon left ($line); segments avoid the contradiction"
for flags in "--reference 3" "--timebase median" "--alpha 0.2"; do
    "$SYNCTRACE_BIN" merge "$tmp/warm" -o "$tmp/warm.x" --force $flags >/dev/null 2>&1
    ok $([ "$(json "$tmp/warm.x/report.json" "d['delta_ns'] == 0 and d['tachyons_after'] == 0 and d['nonmonotonic_after'] == 0")" = True ] && checked "$tmp/warm.x" | grep -q "tachyons 0 nonmonotonic 0"; echo $?) \
        "changing drift, segments, $flags: delta 0, no tachyon in the written archive"
done

# Bad options: one line each, exit 2, no output.
bad=0
for args in "--drift-model bogus" "--min-latency -5" "--cluster-levels 0" "--alpha 2" "--reference x" \
    "--estimates --alpha 0.5"; do
    "$SYNCTRACE_BIN" merge "$tmp/a" -o "$tmp/badopt.out" $args >/dev/null 2>"$tmp/badopt.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/badopt.err")" -eq 1 ] && [ ! -e "$tmp/badopt.out" ] || { bad=1; diag "$args: exit $rc, $(cat "$tmp/badopt.err")"; }
done
ok $bad "bad merge options (--drift-model, --min-latency, --cluster-levels, --alpha, --reference, --estimates with --alpha): one line, exit 2, no output"

"$SYNCTRACE_BIN" report "$tmp/a.out" >"$tmp/rep"
ok $([ $? -eq 0 ] && grep -q "tachyons" "$tmp/rep"; echo $?) "synctrace report prints the summary"
finish
