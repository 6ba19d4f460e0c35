#!/bin/bash
# test-iothread.sh — event records converted to OTF2 on the tracer's I/O
# thread (SYNCTRACE_IO_THREAD=1) make the same trace as on the recording
# thread (=0): the same events in the same order on every location, also
# for threaded ranks; memory stays bounded (a small buffer makes the
# recording thread wait for the I/O thread, and no event is lost); and a
# SIGTERM that comes while the I/O thread writes an event still leaves a
# closed archive holding that event.
. "$top_srcdir/tests/lib.sh"
plan 12
tmp=$(scratch)

# The events of a trace without their times and indices, sorted, and
# without the polling calls, whose number depends on timing (collapsed into
# regions of calls=N or not; as does the
# order in which requests complete): what must not depend on where the
# records were converted. The order is checked by the timestamps.
events() {
    "$SYNCTRACE_BIN" dump --events "$1" | grep -v ' FLUSH ' | sed -E 's/ time=[0-9]+//; s/ calls=[0-9]+//' | cut -d' ' -f1,3- \
        | grep -vE 'region=MPI_(Test|Testall|Testany|Testsome|Waitsome|Waitany|Iprobe|Improbe|Get_count)$' | sort
}
# 0 when the timestamps of every location never decrease (FLUSH records aside).
in_order() {
    "$SYNCTRACE_BIN" dump --events "$1" | awk '$3 != "FLUSH" { split($4, a, "="); if ($1 in prev && a[2] < prev[$1]) bad = 1; prev[$1] = a[2] } END { exit bad }'
}

# --- the same events, point-to-point and collectives (2 ranks)
prog=$(build_mpi mpi_p2p "$tmp") || { ok 1 "build tests/mpi/mpi_p2p.c"; finish; }
SYNCTRACE_VERBOSE=1 run_traced "$tmp/p0" 2 -x SYNCTRACE_IO_THREAD=0 -x SYNCTRACE_VERBOSE "$prog" >"$tmp/p0.out" 2>"$tmp/p0.err"
rc0=$?
SYNCTRACE_VERBOSE=1 run_traced "$tmp/p1" 2 -x SYNCTRACE_IO_THREAD=1 -x SYNCTRACE_VERBOSE "$prog" >"$tmp/p1.out" 2>"$tmp/p1.err"
rc1=$?
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && cmp -s "$tmp/p0.out" "$tmp/p1.out"
ok $? "mpi_p2p runs traced either way with the same output (exit $rc0, $rc1)"
[ "$(grep -c 'converted to OTF2 on an I/O thread' "$tmp/p1.err")" -eq 2 ] \
    && [ "$(grep -c 'converted to OTF2 in flushes' "$tmp/p0.err")" -eq 2 ]
ok $? "SYNCTRACE_IO_THREAD=1 starts an I/O thread on each rank, =0 none"
events "$tmp/p0" >"$tmp/p0.ev" && events "$tmp/p1" >"$tmp/p1.ev" && [ -s "$tmp/p0.ev" ] && cmp -s "$tmp/p0.ev" "$tmp/p1.ev" \
    && in_order "$tmp/p1"
ok $? "mpi_p2p: the same $(wc -l <"$tmp/p1.ev") events either way, in time order on every rank"
"$SYNCTRACE_BIN" merge "$tmp/p1" -o "$tmp/p1.m" >/dev/null 2>"$tmp/p1.merge.err" && [ ! -s "$tmp/p1.merge.err" ]
ok $? "the trace written by I/O threads merges without a warning"

# --- threads: every location's events, MPI_THREAD_MULTIPLE (2 ranks, 4 threads each)
if mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" \
    2>"$tmp/build.err"; then
    run_traced "$tmp/t1" 2 -x SYNCTRACE_IO_THREAD=1 "$tmp/mpi_threads" 50 2>"$tmp/t1.err" | sort >"$tmp/t1.out"
    [ "$(cat "$tmp/t1.out")" = "$(printf 'rank 0 ok\nrank 1 ok')" ] && ! grep -qE '\[OTF2\]|synctrace' "$tmp/t1.err"
    ok $? "mpi_threads: results right and stderr clean with an I/O thread"
    "$SYNCTRACE_BIN" dump --events "$tmp/t1" >"$tmp/t1.dump" 2>/dev/null
    locs=$(awk '{print $1}' "$tmp/t1.dump" | sort -u | wc -l)
    [ "$locs" -gt 2 ] && in_order "$tmp/t1" && "$SYNCTRACE_BIN" merge "$tmp/t1" -o "$tmp/t1.m" >/dev/null 2>&1
    ok $? "mpi_threads: the events of all $locs locations are written in time order, and merge"
else
    ok 1 "build tests/mpi/mpi_threads.c"
    ok 1 "build tests/mpi/mpi_threads.c"
fi

# --- bounded memory: a 1 MiB buffer, ~14 MB of trace (1 rank)
many=$(build_mpi mpi_many "$tmp") || { ok 1 "build mpi_many"; finish; }
calls=600000
run_plain 1 "$many" "$calls" 2>"$tmp/plain.err" >/dev/null
plain=$(awk '/^hwm_kb/ {print $3}' "$tmp/plain.err")
SYNCTRACE_BUFFER_MB=1 run_traced "$tmp/b" 1 -x SYNCTRACE_IO_THREAD=1 "$many" "$calls" 2>"$tmp/b.err" >/dev/null
ok $? "mpi_many runs with SYNCTRACE_BUFFER_MB=1 and an I/O thread"
probes=$("$SYNCTRACE_BIN" dump --events "$tmp/b" | grep -c " ENTER .*region=MPI_Iprobe")
ok $([ "$probes" -eq "$calls" ]; echo $?) "no event lost: $probes of $calls MPI_Iprobe calls recorded"
small=$(awk '/^hwm_kb/ {print $3}' "$tmp/b.err")
ok $([ -n "$small" ] && [ -n "$plain" ] && [ $((small - plain)) -lt 12000 ]; echo $?) \
    "1 MiB buffer: peak memory grows by $((${small:-0} - ${plain:-0})) kB (< 12 MB, trace is ~14 MB)"

# --- SIGTERM while the I/O thread writes events (4 ranks): the shim sends
# it to the process from inside the 3rd event chunk rank 3's I/O thread
# writes to its file.
if crash=$(build_mpi mpi_crash "$tmp") && mpicc -shared -fPIC -O1 -o "$tmp/siw.so" "$top_srcdir/tests/shims/signal_in_write.c" -ldl; then
    timeout -k 5 60 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 "$crash" term 200000 >/dev/null 2>&1
    plain_rc=$?
    # Rank 3 makes 200000 calls before its own SIGTERM (about 16 chunks of
    # 256 KiB): the 3rd is full, and written, long before.
    timeout -k 5 60 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$tmp/siw.so:$SYNCTRACE_LIB" \
        -x SYNCTRACE_DIR="$tmp/w" -x SYNCTRACE_IO_THREAD=1 -x SYNCTRACE_BUFFER_MB=1 -x SIGNAL_IN_WRITE=3 \
        -x SIGNAL_IN_WRITE_RANK=3 -x SIGNAL_IN_WRITE_PROCESS=1 "$crash" term 200000 >/dev/null 2>&1
    rc=$?
fi
[ "${rc:-0}" -ne 0 ] && [ "${rc:-0}" -eq "${plain_rc:-1}" ]
ok $? "in-conversion SIGTERM: the job ends as when rank 3 is sent SIGTERM untraced (exit ${rc:-?}, untraced ${plain_rc:-?})"
"$SYNCTRACE_BIN" dump "$tmp/w" >"$tmp/w.dump" 2>"$tmp/w.err"
n3=$(grep -c '^3 [0-9]* ENTER' "$tmp/w.dump")
[ -f "$tmp/w/rank-000003.sum" ] && [ "$n3" -ge 300 ] && [ "$n3" -lt 200000 ]
ok $? "in-conversion SIGTERM: rank 3's archive is closed and holds the chunk being written and all before ($n3 Enters)"
"$SYNCTRACE_BIN" merge "$tmp/w" -o "$tmp/w.m" >/dev/null 2>"$tmp/w.merge.err" && [ -f "$tmp/w.m/traces.otf2" ]
ok $? "in-conversion SIGTERM: the trace merges"
finish
