#!/bin/bash
# A traced program that forks: the child (which never calls MPI) ends with
# exit() or dies of SIGTERM, and the tracer's atexit and signal handlers run
# in it. Only the process that opened the archive may close it: the child
# must leave the parent's trace alone (no premature anchor, checksum or
# journal removal, no events written over the parent's), and every event
# of the parent, before and after the fork, must be in the trace.
. "$top_srcdir/tests/lib.sh"
plan 8
tmp=$(scratch)
prog=$(build_mpi mpi_fork "$tmp") || { ok 1 "build tests/mpi/mpi_fork.c"; finish; }

for how in exit term; do
    run_traced "$tmp/$how" 2 "$prog" 300 "$how" >"$tmp/$how.out" 2>"$tmp/$how.err"
    [ $? -eq 0 ] && [ "$(sort "$tmp/$how.out")" = "$(printf 'rank 0 ok\nrank 1 ok')" ]
    ok $? "child ends with $how: the program runs as untraced, and its archives are still open after the child ended"
    n=$("$SYNCTRACE_BIN" dump "$tmp/$how" 2>/dev/null | grep -c ' ENTER .*region=MPI_Sendrecv$')
    [ -f "$tmp/$how/rank-000000.sum" ] && [ -f "$tmp/$how/rank-000001.sum" ] && [ ! -e "$tmp/$how/rank-000000.journal" ] \
        && [ "$n" -eq 1200 ]
    ok $? "child ends with $how: both archives closed once, by their ranks, with all 1200 MPI_Sendrecv calls ($n)"
    "$SYNCTRACE_BIN" merge "$tmp/$how" -o "$tmp/$how.m" >/dev/null 2>"$tmp/$how.merge.err" && [ ! -s "$tmp/$how.merge.err" ]
    ok $? "child ends with $how: the trace merges without a word on stderr"
done

# The child's records go to its own copy of the chunks (records.c remaps
# them private at fork), never into the parent's records file: rank 0 is
# SIGKILLed once its child made 2000 MPI_Comm_rank calls, and its trace,
# recovered from that file, holds its own calls only.
timeout -k 5 30 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$SYNCTRACE_LIB" \
    -x SYNCTRACE_DIR="$tmp/kill" "$prog" 300 kill >"$tmp/kill.out" 2>"$tmp/kill.err"
left=$(pgrep -f "$prog 300 kill" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
grep -q '^KILLING rank 0$' "$tmp/kill.out" && [ -s "$tmp/kill/rank-000000.records" ] && [ ! -e "$tmp/kill/rank-000000.sum" ]
ok $? "kill: rank 0 was killed after its child's 2000 MPI_Comm_rank calls, and left its records file"
"$SYNCTRACE_BIN" dump "$tmp/kill" >"$tmp/kill.dump" 2>/dev/null
ranks=$(grep -c '^0 [0-9]* ENTER .*region=MPI_Comm_rank$' "$tmp/kill.dump")
rings=$(grep -c '^0 [0-9]* ENTER .*region=MPI_Sendrecv$' "$tmp/kill.dump")
[ "$ranks" -eq 1 ] && [ "$rings" -eq 300 ]
ok $? "kill: rank 0's recovered trace is its own: 1 MPI_Comm_rank (the child's 2000 are not in it), 300 MPI_Sendrecv ($ranks, $rings)"
finish
