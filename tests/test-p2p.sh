#!/bin/bash
# test-p2p.sh — every point-to-point variant (tests/mpi/mpi_p2p.c) traced with 2
# and with 4 ranks, and with 4 ranks on skewed clocks (every rank its own
# clock domain, so the trace also holds the tracer's sync messages, which
# the checks of the program's messages must leave out).
# tests/checkers/trace_check.py checks the events of each variant (peer world rank,
# local rank, tag, bytes, communicator, region of the post and of the
# completion), FIFO matching of all messages, request completion, region
# nesting and timestamps; and the program's output must not change under
# the tracer.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"

tmp=$(scratch)
run_checked_dir=$tmp
if prog=$(build_mpi mpi_p2p "$tmp"); then ok 0 "build tests/mpi/mpi_p2p.c"; else ok 1 "build tests/mpi/mpi_p2p.c"; fi
run() { run_checked p2p "$tmp/mpi_p2p" "$@"; }

run np=2 2
run np=4 4
run "np=4 skewed clocks" 4 SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20
n=$(grep -c " SEND .*comm=synctrace sync" "$tmp/np_4_skewed_clocks.dump" 2>/dev/null)
[ "${n:-0}" -gt 0 ]
ok $? "np=4 skewed clocks: the trace holds sync messages to leave out (${n:-0} sends)"

plan "$_tap_n"
finish
