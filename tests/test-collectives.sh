#!/bin/bash
# test-collectives.sh — every collective (tests/mpi/mpi_coll.c): blocking ones
# with MPI_IN_PLACE and non-zero roots, their non-blocking forms completed by
# each Wait/Test function, collectives on a split communicator with reversed
# ranks, and neighbourhood collectives on a periodic ring and on a
# non-periodic grid. Run with 4 ranks, 3 ranks (odd sizes), and 4 ranks with
# skewed clocks and periodic sync rounds inside the world collectives. tests/checkers/trace_check.py
# checks pairing and placement of the collective events, identical sequences
# on all members, conservation of bytes, and op/root/bytes of every call
# against values computed by hand.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"

tmp=$(scratch)
run_checked_dir=$tmp
if prog=$(build_mpi mpi_coll "$tmp"); then ok 0 "build tests/mpi/mpi_coll.c"; else ok 1 "build tests/mpi/mpi_coll.c"; fi
run() { run_checked coll "$tmp/mpi_coll" "$@"; }

run np=4 4
run np=3 3
# Skewed clocks make every rank a clock domain of its own, so sync rounds
# exchange messages; periodic rounds run inside world collectives.
run "np=4 periodic sync" 4 SYNCTRACE_SYNC=init,periodic,finalize SYNCTRACE_SYNC_INTERVAL=0.0001 \
    SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20
n=$(grep -c "^0 .* ENTER .*region=synctrace: clock synchronisation" "$tmp/np_4_periodic_sync.dump" 2>/dev/null)
m=$(grep -c " SEND .*comm=synctrace sync" "$tmp/np_4_periodic_sync.dump" 2>/dev/null)
[ "${n:-0}" -gt 2 ] && [ "${m:-0}" -gt 0 ]
ok $? "np=4 periodic sync: rounds besides init and finalize, with messages (${n:-0} rounds on rank 0, ${m:-0} sends)"

# Merged, the collectives of 3 ranks on one clock add no hub vertex (a
# collective over few clocks is direct edges, scans and exscans included),
# and unbounded_domains counts clocks only (hub vertices out of the
# reference's reach were counted once: 2 here), at most the domains there are.
"$SYNCTRACE_BIN" merge "$tmp/np_3.trace" -o "$tmp/np_3.merged" >/dev/null 2>"$tmp/np_3.merge.err"
facts=$("$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['solver']; \
print(s['hubs'], s['unbounded_domains'], len(d['domains']))" "$tmp/np_3.merged/report.json" 2>/dev/null)
read -r hubs unbounded domains <<<"$facts"
[ "${hubs:-x}" = 0 ] && [ "${unbounded:-x}" = 0 ] && [ "${domains:-0}" -ge 1 ]
ok $? "np=3 merged: ${hubs:-?} hub vertices, ${unbounded:-?} unbounded of ${domains:-?} clock domains"

plan "$_tap_n"
finish
