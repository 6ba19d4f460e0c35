#!/bin/bash
# test-communicators.sh — communicator ids and world-rank peers for every way
# of making a communicator (tests/mpi/mpi_comms.c, 4 ranks), checked by
# tests/checkers/comm_check.py against what the program itself says about them, and
# their life events (CommCreate/CommDestroy) where Score-P writes them.
. "$top_srcdir/tests/lib.sh"
PYTHON3=${PYTHON3:-python3}
plan 9

tmp=$(scratch)
if ! prog=$(build_mpi mpi_comms "$tmp"); then
    for i in 1 2 3 4 5 6 7 8 9; do ok 1 "build tests/mpi/mpi_comms.c"; done
    finish
fi

run_traced "$tmp/trace" 4 "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ! grep -q '^FAIL' "$tmp/out" && [ "$(grep -c '^COMM ' "$tmp/out")" -eq 61 ]
ok $? "mpi_comms runs traced on 4 ranks (exit $rc, $(grep -c '^COMM ' "$tmp/out") COMM lines of 61)"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err" | head -20

"$SYNCTRACE_BIN" dump "$tmp/trace" >"$tmp/dump" 2>"$tmp/dump.err"
ok $? "synctrace dump reads the trace"
[ "$(grep -c '^# rank [0-9]* world_size' "$tmp/dump")" -eq 4 ]
ok $? "the trace has 4 rank archives"

check() {
    "$PYTHON3" "$top_srcdir/tests/checkers/comm_check.py" "$1" "$tmp/out" "$tmp/dump"
}
check peers
ok $? "every message: SEND peer = receiver's world rank, RECV peer = sender's (intercommunicator too)"
check keys
ok $? "members of each communicator share its key and member list (intercomm: complementary remote groups)"
check distinct
ok $? "distinct communicators have distinct keys (dup, dup after free, split halves, ...)"
check members
ok $? "non-members have no definition of a communicator; members have exactly one"
check life
ok $? "CommCreate/CommDestroy: one each per member inside the making and the freeing call, WORLD/SELF in MPI_Init/MPI_Finalize, none for MPI_COMM_NULL results"

# MPI_Comm_idup: the communicator exists only after the Wait.
grep -E '^COMM label=idup_(even|odd) ' "$tmp/out" | sed 's/.*world=\([0-9]*\).*/\1/' | sort | tr '\n' ' ' | grep -qx '0 1 2 3 '
ok $? "MPI_Comm_idup completed by MPI_Wait on every rank"
diag "(keys/peers above include two idups completed in opposite orders on even and odd ranks)"

grep '^INFO' "$tmp/out" | sed 's/^/# /'
finish
