#!/bin/bash
# A traced program that forks: the child (which never calls MPI) ends with
# exit() or dies of SIGTERM, and the tracer's atexit and signal handlers run
# in it. Only the process that opened the archive may close it: the child
# must leave the parent's trace alone (no premature anchor, checksum or
# journal removal, no events written over the parent's), and every event
# of the parent, before and after the fork, must be in the trace.
. "$top_srcdir/tests/lib.sh"
plan 6
tmp=$(scratch)
prog=$(build_mpi mpi_fork "$tmp") || { ok 1 "build tests/mpi_fork.c"; finish; }

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
finish
