#!/bin/bash
# The merge's memory and disk checks (tools/merge/memcheck.c): before
# reading, a trace whose events seem not to fit in the memory available
# gets one line on stderr saying so, and the merge goes on; a trace that
# fits gets none. Likewise a merged archive, or spill files of the match's
# sorts, that seem not to fit on their file system. SYNCTRACE_MEMORY_MB
# and SYNCTRACE_DISK_MB stand in for the machine's memory and free space.
# The controlled logical clock streams, its per-event state on disk: the
# repair (delta > 0) and, with true times, the comparison with it have
# nothing to say however little memory there is; the repair's in-memory
# reference (SYNCTRACE_REPAIR=memory) says in one line when it may not
# fit, and runs; the repair's files too little disk.
. "$top_srcdir/tests/lib.sh"
plan 11
GEN="$top_builddir/synctrace-gen"
tmp=$(scratch)

"$GEN" "$tmp/g" --ranks 8 --iterations 500 --no-true-time >/dev/null
events=$("$top_builddir/synctrace" dump --events "$tmp/g" | wc -l)

SYNCTRACE_MEMORY_MB=1 "$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/small" >/dev/null 2>"$tmp/small.err"
rc=$?
line=$(grep -c "take about .* GB to merge in memory, more than the .* GB available here" "$tmp/small.err")
[ $rc -eq 0 ] && [ "$line" -eq 1 ] && [ "$(wc -l <"$tmp/small.err")" -eq 1 ]
ok $? "1 MiB assumed: one line says the trace may not fit, and the merge goes on ($(cat "$tmp/small.err"))"

# The estimate is the events' own count within a factor of two.
est=$(sed -n 's/.*: about \([0-9.e+]*\) events .*/\1/p' "$tmp/small.err")
awk -v e="${est:-0}" -v n="$events" 'BEGIN { exit !(e > n / 2 && e < n * 2) }'
ok $? "the estimate of events (${est:-none}) is within a factor of two of the trace's $events"

SYNCTRACE_MEMORY_MB=100000 "$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/big" >/dev/null 2>"$tmp/big.err"
[ $? -eq 0 ] && [ ! -s "$tmp/big.err" ]
ok $? "100 GB assumed: not a word on stderr"

"$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/auto" >/dev/null 2>"$tmp/auto.err"
[ $? -eq 0 ] && [ ! -s "$tmp/auto.err" ] && cmp -s "$tmp/small/traces/0.evt" "$tmp/big/traces/0.evt"
ok $? "this machine's own memory: not a word either; the merged events are the same whatever was assumed"

# Disk: the archive takes about the raw event files' size on OUT_DIR's file
# system, the spill files (beyond --sort-memory) on --spill-dir's.
SYNCTRACE_DISK_MB=0.01 "$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/d1" >/dev/null 2>"$tmp/d1.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/d1.err")" -eq 1 ] && grep -q "^synctrace merge: $tmp: about .* GB for the merged archive, more than the .* GB free there" "$tmp/d1.err" &&
    cmp -s "$tmp/d1/traces/0.evt" "$tmp/big/traces/0.evt"
ok $? "10 KB free assumed: one line names OUT_DIR's directory, and the merge goes on ($(cat "$tmp/d1.err"))"
mkdir -p "$tmp/spill"
SYNCTRACE_DISK_MB=0.01 "$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/d2" --sort-memory 0.1 --spill-dir "$tmp/spill" \
    >/dev/null 2>"$tmp/d2.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/d2.err")" -eq 1 ] &&
    grep -q "GB for the merged archive and the spill files, more than" "$tmp/d2.err"
ok $? "sorts that spill on the same file system: counted with the archive ($(cat "$tmp/d2.err"))"
SYNCTRACE_DISK_MB=100000 "$top_builddir/synctrace" merge "$tmp/g" -o "$tmp/d3" --sort-memory 0.1 --spill-dir "$tmp/spill" \
    >/dev/null 2>"$tmp/d3.err"
[ $? -eq 0 ] && [ ! -s "$tmp/d3.err" ]
ok $? "100 GB free assumed: not a word"

# True times: the comparison with the controlled logical clock streams
# (its per-event state on disk, as the repair's): it runs however little
# memory there is, with the same figures; the archive is the same.
"$GEN" "$tmp/t" --ranks 4 --iterations 2000 >/dev/null
SYNCTRACE_MEMORY_MB=1 "$top_builddir/synctrace" merge "$tmp/t" -o "$tmp/t1" >/dev/null 2>"$tmp/t1.err"
rc=$?
SYNCTRACE_MEMORY_MB=100000 "$top_builddir/synctrace" merge "$tmp/t" -o "$tmp/t2" >/dev/null 2>"$tmp/t2.err"
clc1=$(grep -o '"clc": { "tachyons_after": [^}]*"cycles_broken": [0-9]*' "$tmp/t1/report.json")
clc2=$(grep -o '"clc": { "tachyons_after": [^}]*"cycles_broken": [0-9]*' "$tmp/t2/report.json")
[ $rc -eq 0 ] && ! grep -q "controlled logical" "$tmp/t1.err" && [ -n "$clc1" ] && [ "$clc1" = "$clc2" ] \
    && [ ! -s "$tmp/t2.err" ] && cmp -s "$tmp/t1/traces/0.evt" "$tmp/t2/traces/0.evt"
ok $? "true times, 1 MiB assumed: the comparison with the controlled logical clock runs, the same as with 100 GB; the same archive (${clc1:0:120})"

# A repair (delta > 0: the drifts change faster than the line model lets
# them) streams: not a word of it with 1 MiB assumed. The in-memory reference
# says at once when it may not fit, and runs; the same archive all three ways.
"$GEN" "$tmp/r" --ranks 2 --pattern ring --iterations 20000 --no-true-time --drift-slope 500 --latency-ns 100 >/dev/null
SYNCTRACE_MEMORY_MB=1 "$top_builddir/synctrace" merge "$tmp/r" -o "$tmp/r0" --drift-model line >/dev/null 2>"$tmp/r0.err"
rc0=$?
SYNCTRACE_REPAIR=memory SYNCTRACE_MEMORY_MB=1 "$top_builddir/synctrace" merge "$tmp/r" -o "$tmp/r1" --drift-model line >/dev/null 2>"$tmp/r1.err"
rc=$?
SYNCTRACE_REPAIR=memory SYNCTRACE_MEMORY_MB=100000 "$top_builddir/synctrace" merge "$tmp/r" -o "$tmp/r2" --drift-model line >/dev/null 2>"$tmp/r2.err"
[ $rc0 -eq 0 ] && ! grep -q "contradict" "$tmp/r0.err" && grep -q '"repair": { "applied": true' "$tmp/r0/report.json" \
    && [ $rc -eq 0 ] && [ "$(grep -c "^synctrace merge: the events contradict every clock model (delta .* ns): repairing them takes about .* GB, more than the .* GB available here: the merge may be killed for lack of memory" "$tmp/r1.err")" = 1 ] \
    && grep -q '"repair": { "applied": true' "$tmp/r1/report.json" && [ ! -s "$tmp/r2.err" ] \
    && cmp -s "$tmp/r1/traces/0.evt" "$tmp/r2/traces/0.evt" && cmp -s "$tmp/r0/traces/0.evt" "$tmp/r2/traces/0.evt" \
    && cmp -s "$tmp/r0/traces/1.evt" "$tmp/r2/traces/1.evt"
ok $? "a repair streams: 1 MiB assumed, not a word; in memory (SYNCTRACE_REPAIR=memory) one line says it may not fit, and it runs; with 100 GB not a word; the same archive all three ways ($(grep contradict "$tmp/r1.err" | cut -c1-150))"
# Its files wait in --spill-dir: too little space there is said in one line.
SYNCTRACE_DISK_MB=1 "$top_builddir/synctrace" merge "$tmp/r" -o "$tmp/r3" --drift-model line >/dev/null 2>"$tmp/r3.err"
[ $? -eq 0 ] && [ "$(grep -c "^synctrace merge: .*: the events contradict every clock model (delta .* ns): repairing them writes about .* GB there, more than the .* GB free: the merge may fail for lack of space" "$tmp/r3.err")" = 1 ] \
    && ! grep -q "repairing them writes" "$tmp/r0.err" && cmp -s "$tmp/r3/traces/0.evt" "$tmp/r2/traces/0.evt"
ok $? "a repair with 1 MiB free assumed: one line says its files may not fit, and it runs ($(grep "repairing them writes" "$tmp/r3.err" | cut -c1-200))"
grep -q '"delta_ns": 0.000' "$tmp/r2/report.json"
[ $? -ne 0 ]
ok $? "that trace does contradict the line model ($(grep -o '"delta_ns": [0-9.]*' "$tmp/r2/report.json"))"
finish
