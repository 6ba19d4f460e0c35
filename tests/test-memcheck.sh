#!/bin/bash
# The merge's memory check (tools/merge/memcheck.c): before reading, a
# trace whose events seem not to fit in the memory available gets one line
# on stderr saying so, and the merge goes on; a trace that fits gets none.
# SYNCTRACE_MEMORY_MB stands in for the machine's memory.
. "$top_srcdir/tests/lib.sh"
plan 4
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
finish
