#!/bin/bash
# test-intercoll.sh — collectives on an intercommunicator (tests/mpi/mpi_intercoll.c):
# every rooted one in both directions with MPI_ROOT / MPI_PROC_NULL and NULL
# arguments where MPI ignores them (the non-root side's counts and
# displacements of Gatherv/Scatterv crashed the tracer), blocking and
# non-blocking, the all-to-all kinds with zero and sparse counts, then
# intracommunicator v-collectives with NULL arrays off the root,
# MPI_IN_PLACE and zero-byte collectives. Traced and untraced output must be
# identical; tests/checkers/trace_check.py intercoll checks every recorded call (root
# as SELF / THIS_GROUP / world rank, bytes, sparse sources) against MPI's rules.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"

tmp=$(scratch)
run_checked_dir=$tmp
if prog=$(build_mpi mpi_intercoll "$tmp"); then ok 0 "build tests/mpi/mpi_intercoll.c"; else ok 1 "build tests/mpi/mpi_intercoll.c"; fi
run() { run_checked intercoll "$tmp/mpi_intercoll" "$@"; }

run np=4 4
run np=3 3
run "np=2 skewed" 2 SYNCTRACE_SKEW=seed=5,offset_us=300,drift_ppm=10

# Merged without true times but with sparse members: the attributes are
# numbered from 0 without a gap (they started at 1, where true_time would
# be, and otf2-print warned of every one), and still found by name.
"$SYNCTRACE_BIN" merge "$tmp/np_4.trace" -o "$tmp/merged" >/dev/null 2>"$tmp/merge.err"
ok $? "np=4: merged"
"${OTF2_PRINT:-otf2-print}" "$tmp/merged/traces.otf2" >/dev/null 2>"$tmp/print.err" && [ ! -s "$tmp/print.err" ]
ok $? "np=4: otf2-print reads the merged archive without a warning$(head -1 "$tmp/print.err" | sed 's/^/ (/; s/$/)/')"
"${OTF2_PRINT:-otf2-print}" -G "$tmp/merged/traces.otf2" 2>/dev/null \
    | grep -E '^ATTRIBUTE +0 +Name: "coll_sources_slots"' >/dev/null
ok $? "np=4: the merged archive's first attribute is coll_sources_slots (no true_time)"
# Rebuilt from the merged archive, the causal index is the merge's own: a
# sparse member of group B received from slots of group A (its peers), not
# of its own group (the rebuild read them so, and lost 368 orderings).
cp "$tmp/merged/causal.idx" "$tmp/merge.idx"
"$SYNCTRACE_BIN" causal "$tmp/merged" --force >/dev/null 2>"$tmp/causal.err" &&
    [ "$(stat -c %s "$tmp/merge.idx")" = "$(stat -c %s "$tmp/merged/causal.idx")" ] &&
    cmp -s -n 168 "$tmp/merge.idx" "$tmp/merged/causal.idx" && cmp -s -i 256 "$tmp/merge.idx" "$tmp/merged/causal.idx"
ok $? "np=4: the causal index rebuilt from the merged archive is the merge's own (intercommunicator sparse sources)"

plan "$_tap_n"
finish
