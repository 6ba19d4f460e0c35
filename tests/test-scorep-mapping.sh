#!/bin/bash
# The merged archive, point by point against Score-P's (issue 10, section 6;
# docs/scorep-mapping.md): a program with one call of each kind Vampir reads
# differently (collectives of every role, a named split and its duplicate, an
# intercommunicator, one-sided calls with fence, lock/unlock, lock_all and PSCW, a
# Cartesian and a graph topology) runs
# untraced and traced with the same output, merges with skewed clocks, and
# OTF2's own readers check the result: mapping_check.py (Python bindings)
# for region roles against the docs' table, the MPI paradigm, communicator
# names, Cartesian topologies, RMA windows and events, MPI_Init first,
# communicator life events (CommCreate/CommDestroy: one per member rank,
# inside the making/ending call, on the right communicator; rank 0 alone
# gets the split the others leave with MPI_UNDEFINED);
# otf2-print reads every
# archive we wrote (raw and merged) without a warning, and so do OTF2's
# Python bindings every raw archive; merged_check.py finds
# no tachyon, nothing unmatched and the report's accuracy. MPI_Init's Enter
# is stamped before PMPI_Init: with SYNCTRACE_CLOCK=monotonic_raw it lies
# within 1 ms after the program's own clock reading just before MPI_Init.
. "$top_srcdir/tests/lib.sh"
plan 25
tmp=$(scratch)
: "${OTF2_PRINT:=otf2-print}"
pyotf2=""
for p in "${PYTHON3:-python3}" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
prog=$(build_mpi mpi_mapping "$tmp") || { ok 1 "build mpi_mapping"; finish; }

run_plain 4 "$prog" 2>"$tmp/plain.err" | sort >"$tmp/plain.out"
SYNCTRACE_SKEW=seed=21,offset_us=700,drift_ppm=25 run_traced "$tmp/raw" 4 "$prog" 2>"$tmp/traced.err" \
    | sort >"$tmp/traced.out"
ok $([ -s "$tmp/plain.out" ] && cmp -s "$tmp/plain.out" "$tmp/traced.out" && [ ! -s "$tmp/traced.err" ]; echo $?) \
    "traced: the same output as untraced, nothing on stderr"
"$SYNCTRACE_BIN" merge "$tmp/raw" -o "$tmp/out" >/dev/null 2>"$tmp/merge.err"
ok $? "merged with skewed clocks"

if [ -n "$pyotf2" ]; then
    "$pyotf2" "$top_srcdir/tests/checkers/mapping_check.py" "$tmp/out/traces.otf2" "$top_srcdir/docs/scorep-mapping.md" \
        >"$tmp/mapping.check" 2>&1
    [ "$(grep -c '^ok - ' "$tmp/mapping.check")" -eq 15 ] || { ok 1 "mapping_check.py ran all its checks"; cat "$tmp/mapping.check"; }
    tap_from_checker "merged: " "$tmp/mapping.check"
    # WORLD, SELF, the early dup, the idup, a half, its dup, the intercommunicator,
    # the Cartesian and the graph communicator: 9 each; rank 0 also the split
    # only it is in (MPI_COMM_NULL elsewhere records nothing)
    creates=$(grep '^comm_creates rank ' "$tmp/mapping.check" | awk '{ printf "%s ", $4 }')
    [ "$creates" = "10 9 9 9 " ]
    ok $? "merged: CommCreate events per rank: $creates(want 10 9 9 9)"
    line=$("$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" "$tmp/out/traces.otf2" "$tmp/out/report.json" 2>&1 | tail -2)
    diag "$line"
    echo "$line" | grep -q "tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0"
    ok $? "merged: no tachyon, nothing unmatched (read independently)"
    echo "$line" | grep -q "mismatches 0$"
    ok $? "merged: the report's accuracy figures recomputed from the archive"
else
    for i in $(seq 18); do skip "python3 cannot import otf2 (python3-otf2)"; done
fi

"$OTF2_PRINT" "$tmp/out/traces.otf2" >/dev/null 2>"$tmp/print.err"
ok $([ $? -eq 0 ] && [ ! -s "$tmp/print.err" ]; echo $?) "otf2-print reads the merged archive without a warning"
warned=0
for f in "$tmp"/raw/rank-*.otf2; do
    "$OTF2_PRINT" "$f" >/dev/null 2>"$tmp/rawprint.err" && [ ! -s "$tmp/rawprint.err" ] \
        || { warned=$((warned + 1)); diag "$(head -1 "$tmp/rawprint.err")"; }
done
ok $([ "$warned" -eq 0 ]; echo $?) "otf2-print reads every raw archive without a warning ($warned warned)"
if [ -n "$pyotf2" ]; then
    # every raw archive, each location's events: a group naming a location
    # the archive does not define, or a group type the bindings do not know,
    # fails here (the raw definitions name only the rank's own location)
    "$pyotf2" -c "
import sys, otf2
for path in sys.argv[1:]:
    with otf2.reader.open(path) as t:
        n = sum(1 for _ in t.events)
        comms = len(t.definitions.comms)
        assert n > 0 and comms > 0, path
print('read', len(sys.argv) - 1)
" "$tmp"/raw/rank-*.otf2 >"$tmp/pyraw.out" 2>&1
    ok $([ $? -eq 0 ] && grep -qx "read 4" "$tmp/pyraw.out"; echo $?) "OTF2's Python bindings read every raw archive"
    [ -s "$tmp/pyraw.out" ] && diag "$(tail -1 "$tmp/pyraw.out")"
else
    skip "python3 cannot import otf2"
fi

# MPI_Init's Enter before PMPI_Init
initprog=$(build_mpi mpi_init_time "$tmp") || { ok 1 "build mpi_init_time"; finish; }
SYNCTRACE_CLOCK=monotonic_raw run_traced "$tmp/init" 2 "$initprog" >"$tmp/init.out" 2>"$tmp/init.err"
ok $? "mpi_init_time traced with SYNCTRACE_CLOCK=monotonic_raw"
"$SYNCTRACE_BIN" dump --events "$tmp/init" >"$tmp/init.dump"
bad=0
for r in 0 1; do
    before=$(awk -v r="$r" '$1 == "rank" && $2 == r { print $4 }' "$tmp/init.out")
    enter=$(awk -v r="$r" '$1 == r && $3 == "ENTER" && /region=MPI_Init$/ { sub("time=", "", $4); print $4; exit }' "$tmp/init.dump")
    diag "rank $r: clock read before MPI_Init $before, MPI_Init entered $enter"
    awk -v b="${before:-0}" -v e="${enter:-0}" 'BEGIN { exit !(b > 0 && e >= b && e - b < 1000000) }' || bad=1
done
ok $bad "MPI_Init's Enter is stamped within 1 ms after the program's reading before MPI_Init"
finish
