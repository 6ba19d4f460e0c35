#!/bin/bash
# SYNCTRACE_BUFFER_MB bounds the tracer's memory: a run with ten times more
# trace data than the buffer flushes (BufferFlush records, in order), keeps
# every event, and its peak memory grows by about the buffer, not the trace.
. "$top_srcdir/tests/lib.sh"
plan 9
tmp=$(scratch)
prog=$(build_mpi mpi_many "$tmp") || { ok 1 "build mpi_many"; finish; }
calls=600000     # 1.2M Enter/Leave records, ~14 MB of trace

run_plain 1 "$prog" "$calls" 2>"$tmp/plain.err" >/dev/null
plain=$(awk '/^hwm_kb/ {print $3}' "$tmp/plain.err")
SYNCTRACE_BUFFER_MB=1 run_traced "$tmp/small" 1 "$prog" "$calls" 2>"$tmp/small.err" >/dev/null
ok $? "runs traced with SYNCTRACE_BUFFER_MB=1"
small=$(awk '/^hwm_kb/ {print $3}' "$tmp/small.err")
"$SYNCTRACE_BIN" dump --events "$tmp/small" >"$tmp/small.dump"
flushes=$(grep -c " FLUSH " "$tmp/small.dump")
ok $([ "$flushes" -ge 5 ]; echo $?) "the 1 MiB buffer was flushed $flushes times, each recorded"
probes=$(grep -c " ENTER .*region=MPI_Iprobe" "$tmp/small.dump")
ok $([ "$probes" -eq "$calls" ]; echo $?) "no event lost: $probes of $calls MPI_Iprobe calls recorded"
awk '$3 != "FLUSH" { split($4, a, "="); if (a[2] < prev) bad = 1; prev = a[2] } END { exit bad }' "$tmp/small.dump"
ok $? "timestamps never decrease across flushes"
# A flush is recorded where the program waited for it: from the time of
# the record that needed room (the next one, stamped alike) to its end.
awk '$3 == "FLUSH" { split($4, a, "="); split($5, b, "="); start = a[2]; if (b[2] <= a[2]) bad = 1; want = 1; n++; next }
     want { split($4, a, "="); if (a[2] != start) bad = 1; want = 0 }
     END { exit bad || n == 0 }' "$tmp/small.dump"
ok $? "each flush spans time (stop > start) and starts at the next record's time"
diag "peak memory: untraced ${plain} kB, traced with 1 MiB buffer ${small} kB"
ok $([ $((small - plain)) -lt 12000 ]; echo $?) "1 MiB buffer: peak memory grows by $((small - plain)) kB (< 12 MB, trace is ~14 MB)"
SYNCTRACE_BUFFER_MB=64 run_traced "$tmp/big" 1 "$prog" "$calls" 2>"$tmp/big.err" >/dev/null
big=$(awk '/^hwm_kb/ {print $3}' "$tmp/big.err")
ok $([ "$big" -gt "$small" ] && [ "$(grep -c " FLUSH " <("$SYNCTRACE_BIN" dump --events "$tmp/big"))" -eq 0 ]; echo $?) \
    "64 MiB buffer: no flush, and more memory (${big} kB) than with 1 MiB"

# A file size limit (ulimit -f, as batch systems set): a write past it
# raises SIGXFSZ, which ends the program. The tracer's event file stops at
# the limit instead (whole chunks, declared as such); the program runs on.
(ulimit -f 4096 && run_traced "$tmp/fsize" 1 "$prog" "$calls" >/dev/null 2>"$tmp/fsize.err")
rc=$?
evt=$(stat -c %s "$tmp/fsize/rank-000000/0.evt" 2>/dev/null)
[ $rc -eq 0 ] && [ "$(grep -c "cannot write all of location 0's events (File too large)" "$tmp/fsize.err")" -eq 1 ] \
    && [ "${evt:-0}" -gt 0 ] && [ "${evt:-0}" -le 4194304 ]
ok $? "4 MiB file size limit: the program ends as untraced (exit $rc), one line says the events were cut ($evt bytes)"
"$SYNCTRACE_BIN" merge "$tmp/fsize" -o "$tmp/fsize.m" >/dev/null 2>&1 \
    && [ "$("$SYNCTRACE_BIN" dump --events "$tmp/fsize" | wc -l)" -gt 100000 ]
ok $? "4 MiB file size limit: the events up to the limit read and merge"
finish
