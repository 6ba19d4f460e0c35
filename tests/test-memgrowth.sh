#!/bin/bash
# The merge's memory against the events (issue 12): two generated traces
# of the same 500 ranks, one three times as long as the other, merged
# with --no-causal and the least memory for the sorts; peak RSS (GNU
# time) grows by at most 2.5 bytes per event with the events, their times
# and the matched messages set aside (--event-memory 0: global times are
# computed, raw times read back from the file; measured 0.0, 3.8-5.2 while
# each event's time stayed in memory, 10.2 while the messages were held),
# and by more than 40 when every event is held (32-byte slots and 8-byte
# global times beside that): the measure sees the difference, so a change
# that kept the events, their times, their global times or the messages in
# memory again fails here. Then the same with 2 ranks, whose locations are
# read chunk by chunk (at most 4: measured 1.9-3.3, 4.6-4.9 with the times in
# memory), also with true times (measured 1.4-1.5; 10.4 while they were
# held in memory).
. "$top_srcdir/tests/lib.sh"
plan 18
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)

# peak KB of merging $1 with --event-memory $2 (and $3: --no-causal by default)
peak() {
    rm -rf "$tmp/out"
    /usr/bin/time -f '%M' -o "$tmp/time" "$ST" merge "$1" -o "$tmp/out" ${3---no-causal} --sort-memory 4 \
        --event-memory "$2" >/dev/null 2>"$tmp/merge.err" || { echo 0; return; }
    cat "$tmp/time"
}
events() { "$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$tmp/out/report.json"; }

# measure SHORT LONG MB [OPTION]: merges both with --event-memory MB (and
# OPTION, --no-causal when not given); sets a, b (peak KB), ea, eb (events)
# and growth (peak bytes per event added)
measure() {
    a=$(peak "$1" "$3" ${4+"$4"}); ea=$(events)
    b=$(peak "$2" "$3" ${4+"$4"}); eb=$(events)
    growth=$(awk -v a="$a" -v b="$b" -v ea="$ea" -v eb="$eb" 'BEGIN { printf "%.1f", (b - a) * 1024 / (eb - ea) }')
}
# growth_is TEST: both merges ran and the growth passes the awk test on g
growth_is() { awk -v g="$growth" -v a="$a" -v b="$b" "BEGIN { exit !(a > 0 && b > 0 && ($1)) }"; }

"$GEN" "$tmp/short" --ranks 500 --iterations 40 --no-true-time >/dev/null &&
    "$GEN" "$tmp/long" --ranks 500 --iterations 120 --no-true-time >/dev/null
ok $? "two traces of 500 ranks generated"

measure "$tmp/short" "$tmp/long" 0
growth_is "g <= 2.5"
ok $? "events, their times and messages set aside: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 2.5)"

# With the causal index (built by default): its roles, records and
# cluster entries wait in files, its messages in flight in a small table,
# and it writes its sections straight into its file. What still grows here
# is the sorts' buffers filling up to their budgets (16 MB each, reached
# beyond these sizes): at most 7 bytes per event (4.7 measured; 7.2 with
# the records and the index's arrays in memory, 15.6 with the roles and a
# slot per message too).
measure "$tmp/short" "$tmp/long" 0 ""
growth_is "g <= 7"
ok $? "with the causal index: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 7)"

measure "$tmp/short" "$tmp/long" 100000
growth_is "g > 40"
ok $? "every event held: $a -> $b KB, $growth bytes per event (the measure sees the 32-byte slots)"

# The same two traces merged by 2 processes (mpirun -np 2, pmerge.h):
# each process's peak RSS, the worker's too, grows by at most 2.5 bytes
# per event of the whole trace (measured 0.2 for process 0, which holds
# the worker's times on disk, and 0.9 for the worker); with the events
# held each process holds its share's (measured 28 and 19), which the
# measure sees.
printf '#!/bin/sh\nexec /usr/bin/time -f %%M -o "%s/peak.${OMPI_COMM_WORLD_RANK:-0}" "%s" "$@"\n' "$tmp" "$ST" \
    >"$tmp/peak.sh"
chmod +x "$tmp/peak.sh"
# peaks_of RAW MB: "P0 P1", each process's peak KB merging RAW with --event-memory MB
peaks_of() {
    rm -rf "$tmp/out" "$tmp"/peak.[0-9]
    run_plain 2 "$tmp/peak.sh" merge "$1" -o "$tmp/out" --no-causal --sort-memory 4 --event-memory "$2" \
        >/dev/null 2>"$tmp/merge.err" && echo "$(cat "$tmp/peak.0") $(cat "$tmp/peak.1")" || echo "0 0"
}
parallel_growth() {
    read -r a0 a1 < <(peaks_of "$tmp/short" "$1"); ea=$(events)
    read -r b0 b1 < <(peaks_of "$tmp/long" "$1"); eb=$(events)
    g0=$(awk -v a="$a0" -v b="$b0" -v ea="$ea" -v eb="$eb" 'BEGIN { printf "%.1f", (b - a) * 1024 / (eb - ea) }')
    g1=$(awk -v a="$a1" -v b="$b1" -v ea="$ea" -v eb="$eb" 'BEGIN { printf "%.1f", (b - a) * 1024 / (eb - ea) }')
}
parallel_growth 0
awk -v g0="$g0" -v g1="$g1" 'BEGIN { exit !(g0 <= 2.5 && g1 <= 2.5) }' && [ "$a0" != 0 ] && [ "$a1" != 0 ] \
    && [ "$b0" != 0 ] && [ "$b1" != 0 ]
ok $? "mpirun -np 2, events set aside: process 0 $a0 -> $b0 KB ($g0 bytes per event), the worker $a1 -> $b1 KB ($g1) for $ea -> $eb events (each at most 2.5)"
parallel_growth 100000
awk -v g0="$g0" -v g1="$g1" 'BEGIN { exit !(g0 > 10 && g1 > 10) }' && [ "$a0" != 0 ] && [ "$a1" != 0 ]
ok $? "mpirun -np 2, every event held: process 0 $g0, the worker $g1 bytes per event (the measure sees each share's slots)"

# With true times, locations read whole (--event-memory 1: not kept, each
# in one chunk): what each held of them goes with its hand-over
# (rt_truth_hand; measured -0.1 bytes per event; 7.5 while each location
# kept its emptied array).
"$GEN" "$tmp/true500_short" --ranks 500 --iterations 40 >/dev/null &&
    "$GEN" "$tmp/true500_long" --ranks 500 --iterations 120 >/dev/null
measure "$tmp/true500_short" "$tmp/true500_long" 1
growth_is "g <= 2.5" && grep -q '"truth": { "error_max_ns"' "$tmp/out/report.json"
ok $? "500 ranks with true times: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 2.5)"
rm -rf "$tmp/true500_short" "$tmp/true500_long"

# Few ranks, many events each (NetPIPE's shape): a location is read in
# chunks and set aside chunk by chunk, never held whole, so the growth is
# the same few bytes per event (a location read whole: 33).
"$GEN" "$tmp/two_short" --ranks 2 --pattern ring --iterations 50000 --no-true-time >/dev/null &&
    "$GEN" "$tmp/two_long" --ranks 2 --pattern ring --iterations 150000 --no-true-time >/dev/null
ok $? "two traces of 2 ranks generated"
measure "$tmp/two_short" "$tmp/two_long" 0
growth_is "g <= 4"
ok $? "2 ranks, read in chunks: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 4)"

# The same two merged, then merged again as foreign OTF2 archives (tools/
# foreign), one thread: the copy holds a location's modelled events two
# blocks at a time (foreign_timemap.c), not all of them, so the growth
# is the inner merge's (measured 0.1 bytes per event; 11.2 while a
# location's positions, raw and merged times were held whole).
"$ST" merge "$tmp/two_short" -o "$tmp/two_short.otf2d" --no-causal >/dev/null 2>&1 &&
    "$ST" merge "$tmp/two_long" -o "$tmp/two_long.otf2d" --no-causal >/dev/null 2>&1
measure "$tmp/two_short.otf2d/traces.otf2" "$tmp/two_long.otf2d/traces.otf2" 0 "--no-causal --jobs 1"
growth_is "g <= 2.5" && [ -s "$tmp/out/input.json" ]
ok $? "2 ranks, as foreign archives: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 2.5)"
rm -rf "$tmp/two_short.otf2d" "$tmp/two_long.otf2d"

# The same with true times (synctrace-gen's default, as SYNCTRACE_SKEW
# gives): they go to a file in --spill-dir as the events are read
# (truthstore.c), and the report and the write read them back from there,
# so the growth stays that of a trace without them (measured 1.4-1.5
# bytes per event; 10.4 while they were held, 8 bytes and a bit each).
"$GEN" "$tmp/true_short" --ranks 2 --pattern ring --iterations 50000 >/dev/null &&
    "$GEN" "$tmp/true_long" --ranks 2 --pattern ring --iterations 150000 >/dev/null
measure "$tmp/true_short" "$tmp/true_long" 0
growth_is "g <= 4" && grep -q '"truth": { "error_max_ns"' "$tmp/out/report.json"
ok $? "2 ranks with true times: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 4)"
rm -rf "$tmp/true_short" "$tmp/true_long"

# Few clocks, many collectives (an all-to-all in a loop on 4 ranks): each
# instance's constraints go into the table of the tightest per pair of
# clocks, not into a hub vertex of its own, so they add nothing per
# instance (measured 0.2 bytes per event from 2.9 to 8.6 M events; 21.6
# with a hub per instance, from 1.0 to 2.9 M).
"$GEN" "$tmp/coll_short" --ranks 4 --pattern alltoall --iterations 180000 --no-true-time >/dev/null &&
    "$GEN" "$tmp/coll_long" --ranks 4 --pattern alltoall --iterations 540000 --no-true-time >/dev/null
ok $? "two traces of 4 ranks' all-to-alls generated"
measure "$tmp/coll_short" "$tmp/coll_long" 0
growth_is "g <= 2.5"
ok $? "4 ranks of all-to-alls: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 2.5)"

# The repair (delta > 0: drifts that change faster than --drift-model line
# lets them) streams (clc_stream.h): what it keeps per event waits on
# disk, and the global times are read back from there, so the growth is
# that of the merge without it (measured 0.4-2.2 bytes per event); the
# in-memory reference (SYNCTRACE_REPAIR=memory) holds some 49 per event,
# which the measure sees.
"$GEN" "$tmp/rep_short" --ranks 2 --pattern ring --iterations 50000 --no-true-time --drift-slope 500 --latency-ns 100 \
    >/dev/null &&
    "$GEN" "$tmp/rep_long" --ranks 2 --pattern ring --iterations 150000 --no-true-time --drift-slope 500 \
        --latency-ns 100 >/dev/null
ok $? "two traces of 2 ranks whose drifts change, generated"
measure "$tmp/rep_short" "$tmp/rep_long" 0 "--no-causal --drift-model line"
growth_is "g <= 4" && grep -q '"repair": { "applied": true' "$tmp/out/report.json"
ok $? "a repair, streamed: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 4)"
# Longer, the drifts move further and the backward pass leaves a
# breakpoint of the raw-view map nearly every few events (0.8 M of them at
# 12 M events): they wait in a file as they are found (rawview_write.c),
# so the growth stays near 0 (measured 0.2 bytes per event; 1.8 while they
# were held).
"$GEN" "$tmp/rep_huge" --ranks 2 --pattern ring --iterations 1000000 --no-true-time --drift-slope 500 \
    --latency-ns 100 >/dev/null
measure "$tmp/rep_long" "$tmp/rep_huge" 0 "--no-causal --drift-model line"
points=$(grep -vc '^rank\|^synctrace\|^ranks' "$tmp/out/rawview.map")
growth_is "g <= 1" && [ "$points" -gt 500000 ]
ok $? "a repair whose raw-view map has $points breakpoints: peak RSS $a -> $b KB for $ea -> $eb events, $growth bytes per event (at most 1)"
rm -rf "$tmp/rep_huge" "$tmp/out_huge"
mv "$tmp/out" "$tmp/out_huge"
points_huge=$points
SYNCTRACE_REPAIR=memory measure "$tmp/rep_short" "$tmp/rep_long" 0 "--no-causal --drift-model line"
growth_is "g > 40" && grep -q '"repair": { "applied": true' "$tmp/out/report.json"
ok $? "the same repair in memory: $a -> $b KB, $growth bytes per event (the measure sees its arrays)"
# The HTML export of the two repaired outputs (rep_long's, just merged,
# and rep_huge's): it reads the map through a file, a few blocks at a
# time (rawview.c, a cache of at most 6 MB), and thins it to the page's
# budget of 100000 points (export_html.c), so beyond the cache its peak
# RSS grows by at most 1 byte per breakpoint (measured below 0; the build
# that read the map whole: 15 and more); the page says the tolerance it
# took, and its raw tachyons are the report's.
xpeak() {
    /usr/bin/time -f '%M' -o "$tmp/xtime" "$ST" export "$1" --format html -o "$1/page.html" 2>"$tmp/export.err" ||
        { echo 0; return; }
    cat "$tmp/xtime"
}
points_long=$(grep -vc '^rank\|^synctrace\|^ranks' "$tmp/out/rawview.map")
xa=$(xpeak "$tmp/out") xb=$(xpeak "$tmp/out_huge")
read -r page_points tol raw_page raw_report raw_near raw_agree < <("$PYTHON3" - "$tmp/out_huge" <<'PY'
import json, sys
d = sys.argv[1]
s = open(d + "/page.html").read()
i = s.index('"raw":')
j = s.index(',"rawToleranceNs":', i)
raw = json.loads(s[i + 6:j])
tol = float(s[j + 18:s.index(',', j + 18)])
k = s.index('"tachyonsRaw":')
n = s.index('"tachyonsRawNear":')
page, near = int(s[k + 14:s.index(',', k)]), int(s[n + 18:s.index(',', n)])
report = json.load(open(d + "/report.json"))["tachyons_raw"]
# the page's raw times are the map's, within 1 ns: only a message that
# close to a tie may count otherwise than in the report
print(sum(len(a) // 2 for a in raw), tol, page, report, near, int(abs(page - report) <= near))
PY
)
xgrowth=$(awk -v a="$xa" -v b="$xb" -v pa="$points_long" -v pb="$points_huge" \
    'BEGIN { printf "%.1f", (b - a - 6144) * 1024 / (pb - pa) }')
awk -v g="$xgrowth" -v a="$xa" -v b="$xb" 'BEGIN { exit !(a > 0 && b > 0 && g <= 1) }' &&
    [ "$page_points" -le 100000 ] && awk -v t="$tol" 'BEGIN { exit !(t > 1) }' && [ "$raw_agree" = 1 ]
ok $? "HTML export: $xa -> $xb KB for $points_long -> $points_huge breakpoints ($xgrowth bytes each beyond the 6 MB cache, at most 1); the page holds $page_points, drawn within $tol ns; $raw_page raw tachyons (report: $raw_report; $raw_near within 2 ns of a tie, which the map's 1 ns may count otherwise)"
finish
