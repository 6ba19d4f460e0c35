#!/bin/bash
# test-threads.sh — requests and threads. First, one thread: Open MPI may
# return one handle for several live requests (tests/mpi/mpi_shared_handle.c),
# and each must still record its completion. Then MPI_THREAD_MULTIPLE:
# tests/mpi/mpi_threads.c runs 4 threads
# per rank that exchange messages, complete requests and run collectives
# concurrently, one thread completing requests another posted. Every thread
# must get a location of its own in its rank's archive, with every message
# matched, every request completed once, no tachyon on the one clock of this
# machine and nothing lost (tests/checkers/thread_check.py reads all locations with
# otf2-print). With SYNCTRACE_TSAN_LIB set to a libsynctrace.so built with
# -fsanitize=thread, the run is repeated under ThreadSanitizer and no report
# may involve the tracer's code (Open MPI's own reports are left out).
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
np=3 threads=4 rounds=30 handoff=8
tmp=$(scratch)

mpicc -std=c11 -O1 -Wall -Wextra -o "$tmp/mpi_shared_handle" "$top_srcdir/tests/mpi/mpi_shared_handle.c" 2>"$tmp/build.err"
ok $? "build tests/mpi/mpi_shared_handle.c"
run_traced "$tmp/shared" 2 "$tmp/mpi_shared_handle" >"$tmp/shared.out" 2>"$tmp/shared.err"
ok $? "mpi_shared_handle: traced run succeeds"
shared=$(sed -n 's/^rank 0: \([0-9]*\) of.*/\1/p' "$tmp/shared.out")
diag "rank 0: ${shared:-?} of 5 MPI_Isend handles were one shared handle"
"$SYNCTRACE_BIN" dump "$tmp/shared" >"$tmp/shared.dump" 2>>"$tmp/shared.err"
n=$(grep -c ' ISEND_COMPLETE ' "$tmp/shared.dump")
m=$(grep -c ' IRECV ' "$tmp/shared.dump")
[ "$n" -eq 12 ] && [ "$m" -eq 12 ]
ok $? "mpi_shared_handle: all 12 sends and 12 receives record their completion (got $n and $m)"

mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" \
    2>"$tmp/build.err"
ok $? "build tests/mpi/mpi_threads.c"
expected=$(for r in $(seq 0 $((np - 1))); do echo "rank $r ok"; done)

run_plain "$np" "$tmp/mpi_threads" "$rounds" 2>"$tmp/plain.err" | sort >"$tmp/plain.out"
[ "$(cat "$tmp/plain.out")" = "$expected" ]
ok $? "untraced: every thread's results are right"

run_traced "$tmp/trace" "$np" "$tmp/mpi_threads" "$rounds" 2>"$tmp/traced.err" | sort >"$tmp/traced.out"
[ "$(cat "$tmp/traced.out")" = "$expected" ]
ok $? "traced: every thread's results are right"
! grep -qE '\[OTF2\]|synctrace' "$tmp/traced.err"
ok $? "traced: no OTF2 or tracer messages on stderr"
grep -qx 'thread_level 3' "$tmp/trace/run.meta"
ok $? "run.meta records MPI_THREAD_MULTIPLE"

"$PYTHON3" "$top_srcdir/tests/checkers/thread_check.py" "$tmp/trace" "$np" "$threads" "$rounds" "$handoff" >"$tmp/check" 2>&1
ok $? "thread_check.py read every rank archive"
tap_from_checker "" "$tmp/check"

# The merge reads every location: a rank's threads share its clock, their
# messages interleave by time, requests pass between them. With skewed
# clocks: every message matched, no tachyon, every true offset inside its
# bounds, and the written archive, read independently (merged_check.py),
# has a location per thread and agrees.
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
# A loaded 2-core machine can misjudge a clock's drift from the sync
# rounds of this short run enough for its own messages to contradict it
# (delta > 0; seen 2026-11-27 with other runs beside it): as in
# test-neighbours.sh, such a run is taken again, at most four times in all,
# and every attempt must still give the right results and merge.
said="" bad_out=0 bad_merge=0
for attempt in 1 2 3 4; do
    rm -rf "$tmp/skewed" "$tmp/merged"
    SYNCTRACE_SKEW=seed=9,offset_us=1000,drift_ppm=50 run_traced "$tmp/skewed" "$np" "$tmp/mpi_threads" "$rounds" \
        2>/dev/null | sort >"$tmp/skewed.out"
    [ "$(cat "$tmp/skewed.out")" = "$expected" ] || bad_out=1
    "$SYNCTRACE_BIN" merge "$tmp/skewed" -o "$tmp/merged" >/dev/null 2>"$tmp/merge.err" || bad_merge=1
    said="$said [run $attempt: delta $(json "$tmp/merged/report.json" "d['delta_ns']" 2>/dev/null)]"
    [ "$(json "$tmp/merged/report.json" "d['delta_ns']" 2>/dev/null)" = 0.0 ] && break
done
[ $bad_out = 0 ]
ok $? "traced with skewed clocks: every thread's results are right, every attempt"
[ $bad_merge = 0 ]
ok $? "synctrace merge reads every location$(head -1 "$tmp/merge.err")"
r=$tmp/merged/report.json
"$SYNCTRACE_BIN" dump "$tmp/skewed" >"$tmp/skewed.dump" 2>/dev/null
nev=$(grep -cE '^[0-9]+(\.[0-9]+)? ' "$tmp/skewed.dump")
nloc=$(($(grep -c '^# rank [0-9]* thread ' "$tmp/skewed.dump") + np))
ok $([ "$(json "$r" "(d['events'], d['ranks'], d['ranks'] + d['threads'])")" = "($nev, $np, $nloc)" ]; echo $?) \
    "the merge has all $nev events of $nloc locations ($np ranks)"
ok $([ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'] + d['tachyons_after'] + d['nonmonotonic_after'] + d['collective_order_violations_after']")" = 0 ] \
    && [ "$(json "$r" "d['delta_ns'] == 0 and d['truth']['domains_inside_bounds'] == $np and d['truth']['messages_violated_by_truth'] == 0")" = True ]; echo $?) \
    "every message and collective matched ($(json "$r" "d['messages']") messages), no tachyon or order violation, delta 0, truth inside the bounds$said"
pyotf2=""
for p in "$PYTHON3" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
if [ -n "$pyotf2" ]; then
    mc=$("$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" "$tmp/merged/traces.otf2" 2>&1 | tail -1)
    ok $(echo "$mc" | grep -q "^events $nev messages $(json "$r" "d['messages']") tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0$"; echo $?) \
        "the merged archive, read independently: $mc"
    locs=$("$pyotf2" -c "
import otf2, sys
with otf2.reader.open(sys.argv[1]) as t:
    print(len(t.definitions.locations), len(t.definitions.location_groups))" "$tmp/merged/traces.otf2" 2>&1 | tail -1)
    ok $([ "$locs" = "$nloc $np" ]; echo $?) "the merged archive: $nloc locations in $np processes (got $locs)"
else
    skip "python3-otf2 not installed"
    skip "python3-otf2 not installed"
fi

# Collectives on one communicator handed from thread to thread
# (tests/mpi/mpi_thread_colls.c): a rank's instances are numbered over all its
# threads. The independent checker's collective data flow, tachyons,
# matching, order and life checks (conformance_check.py) must pass; numbered
# per thread, its own data-flow check once failed on this very trace.
mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_thread_colls" \
    "$top_srcdir/tests/mpi/mpi_thread_colls.c" 2>>"$tmp/build.err"
ok $? "build tests/mpi/mpi_thread_colls.c"
run_plain 3 "$tmp/mpi_thread_colls" >"$tmp/colls.plain" 2>/dev/null
SYNCTRACE_SKEW=seed=9,offset_us=1000,drift_ppm=50 run_traced "$tmp/colls" 3 "$tmp/mpi_thread_colls" \
    >"$tmp/colls.traced" 2>/dev/null
cmp -s "$tmp/colls.plain" "$tmp/colls.traced" && [ "$(wc -l <"$tmp/colls.plain")" = 3 ]
ok $? "mpi_thread_colls: traced, the same sums as untraced"
"$SYNCTRACE_BIN" merge "$tmp/colls" -o "$tmp/colls.out" >/dev/null 2>"$tmp/colls.merge.err"
ok $? "mpi_thread_colls: merged$(head -1 "$tmp/colls.merge.err")"
if [ -n "$pyotf2" ]; then
    "$pyotf2" "$top_srcdir/tests/checkers/conformance_check.py" "$tmp/colls.out" >"$tmp/colls.check" 2>&1
    for c in monotonic tachyons matched dataflow life; do
        line=$(grep -E "^(not )?ok - $c: " "$tmp/colls.check")
        [ -n "$line" ] || line="not ok - $c: $(tail -1 "$tmp/colls.check")"
        case $line in ok*) st=0 ;; *) st=1 ;; esac
        ok $st "mpi_thread_colls: ${line#*ok - }"
    done
else
    for c in monotonic tachyons matched dataflow life; do skip "python3-otf2 not installed"; done
fi
n=$(json "$tmp/colls.out/report.json" "d['thread_overlapping_collectives']" 2>&1)
ok $([ "$n" = 0 ]; echo $?) "mpi_thread_colls: no collective said to overlap another thread's (got $n)"
# ...and with both threads in MPI_Barrier at once (erroneous), the merge says so.
run_traced "$tmp/overlap" 3 "$tmp/mpi_thread_colls" overlap >"$tmp/overlap.traced" 2>/dev/null
cmp -s "$tmp/colls.plain" "$tmp/overlap.traced"
ok $? "mpi_thread_colls overlap: traced, the same sums"
"$SYNCTRACE_BIN" merge "$tmp/overlap" -o "$tmp/overlap.out" >"$tmp/overlap.merge" 2>&1
n=$(json "$tmp/overlap.out/report.json" "d['thread_overlapping_collectives']" 2>&1)
[ "$n" -ge 1 ] 2>/dev/null && [ "$n" -le 12 ] && grep -q "^  erroneous  *$n blocking collectives" "$tmp/overlap.merge"
ok $? "mpi_thread_colls overlap: the merge says $n of the 12 barriers entered second overlapped another thread's"

if [ -n "${SYNCTRACE_TSAN_LIB:-}" ]; then
    tsan=$(gcc -print-file-name=libtsan.so)
    mpicc -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=thread -pthread -o "$tmp/mpi_threads_tsan" \
        "$top_srcdir/tests/mpi/mpi_threads.c" 2>>"$tmp/build.err"
    SYNCTRACE_LIB="$tsan $SYNCTRACE_TSAN_LIB" TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0 exitcode=0" \
        run_traced "$tmp/trace-tsan" "$np" -x TSAN_OPTIONS "$tmp/mpi_threads_tsan" 10 >"$tmp/tsan.out" 2>"$tmp/tsan.err"
    reports=$(grep -c 'WARNING: ThreadSanitizer' "$tmp/tsan.err")
    # A report involves the tracer when a frame is in its library or sources.
    ours=$("$PYTHON3" -c '
import re, sys
blocks = open(sys.argv[1]).read().split("==================")
src = re.escape(sys.argv[2])
print(sum(1 for b in blocks if "WARNING: ThreadSanitizer" in b
          and re.search(r"libsynctrace\.so|" + src + r"/(src|wrappers)/", b)))' "$tmp/tsan.err" "$(cd "$top_srcdir" && pwd)")
    [ "$(sort "$tmp/tsan.out")" = "$(for r in $(seq 0 $((np - 1))); do echo "rank $r ok"; done)" ] && [ "$ours" = 0 ]
    ok $? "ThreadSanitizer: no report involves the tracer ($reports about Open MPI itself)"
else
    skip "SYNCTRACE_TSAN_LIB not set (a libsynctrace.so built with -fsanitize=thread)"
fi

plan "$_tap_n"
finish
