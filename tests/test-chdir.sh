#!/bin/bash
# A program that changes its working directory after MPI_Init, traced
# with a relative SYNCTRACE_DIR (and with none: the default directory is
# relative too): the whole trace is where the run started, not split
# between there and the new working directory.
. "$top_srcdir/tests/lib.sh"
plan 4
tmp=$(scratch)
prog=$(build_mpi mpi_chdir "$tmp") || { ok 1 "build tests/mpi/mpi_chdir.c"; finish; }

mkdir -p "$tmp/start"
(cd "$tmp/start" && timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$SYNCTRACE_LIB" \
    -x SYNCTRACE_DIR=rel "$prog" "$tmp/work" 200 >"$tmp/rel.out" 2>"$tmp/rel.err")
[ $? -eq 0 ] && [ "$(sort "$tmp/rel.out")" = "$(printf 'rank 0 ok\nrank 1 ok')" ] && [ ! -e "$tmp/work/rel" ]
ok $? "relative SYNCTRACE_DIR: the program runs as untraced, and nothing is written under its new working directory"
n=$("$SYNCTRACE_BIN" dump "$tmp/start/rel" 2>/dev/null | grep -c ' ENTER .*region=MPI_Sendrecv$')
"$SYNCTRACE_BIN" merge "$tmp/start/rel" -o "$tmp/rel.m" >/dev/null 2>&1 && [ "$n" -eq 400 ]
ok $? "relative SYNCTRACE_DIR: the whole trace is where the run started, and merges ($n of 400 calls)"

mkdir -p "$tmp/start2"
(cd "$tmp/start2" && timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$SYNCTRACE_LIB" \
    "$prog" "$tmp/work2" 200 >"$tmp/def.out" 2>"$tmp/def.err")
dirs=$(ls -d "$tmp"/start2/synctrace-* 2>/dev/null | wc -l)
[ $? -eq 0 ] && [ "$dirs" -eq 1 ] && [ -z "$(ls "$tmp/work2")" ]
ok $? "no SYNCTRACE_DIR: one synctrace-RUN directory where the run started ($dirs), none in the new working directory"
n=$("$SYNCTRACE_BIN" dump "$tmp"/start2/synctrace-* 2>/dev/null | grep -c ' ENTER .*region=MPI_Sendrecv$')
"$SYNCTRACE_BIN" merge "$tmp"/start2/synctrace-* -o "$tmp/def.m" >/dev/null 2>&1 && [ "$n" -eq 400 ]
ok $? "no SYNCTRACE_DIR: the whole trace is there, and merges ($n of 400 calls)"
finish
