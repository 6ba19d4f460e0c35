#!/bin/bash
# test-crash.sh — a traced job that dies keeps readable archives on every rank,
# and the tracer does not hide the failure (tests/mpi/mpi_crash.c, 4 ranks):
#   segv        rank 1 faults (SIGSEGV) after 1000 events
#   segv-flush  the same after 200000 events with SYNCTRACE_BUFFER_MB=1 (flushes)
#   abort       rank 2 calls MPI_Abort after 1000 events
#   term        rank 3 sends itself SIGTERM after 1000 events
# The other ranks wait in MPI_Recv until Open MPI kills them (SIGCONT,
# SIGTERM, then SIGKILL), so their archives are closed by the tracer's
# SIGTERM handler.
. "$top_srcdir/tests/lib.sh"
: "${OTF2_PRINT:=otf2-print}"
plan 23

tmp=$(scratch)
if ! prog=$(build_mpi mpi_crash "$tmp"); then
    for i in $(seq 23); do ok 1 "build tests/mpi/mpi_crash.c"; done
    finish
fi

# Like run_traced, with a shorter limit: a hang fails the test instead of stalling it.
run_job() {
    local dir=$1; shift
    timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
        -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir" \
        ${SYNCTRACE_BUFFER_MB:+-x SYNCTRACE_BUFFER_MB="$SYNCTRACE_BUFFER_MB"} \
        "$prog" "$@"
}

# How the job ends without the tracer: mpirun's exit status for each mode.
declare -A plain
for mode in segv abort term; do
    timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 "$prog" $mode >/dev/null 2>"$tmp/$mode.plain.err"
    plain[$mode]=$?
done

# variant MODE VICTIM CALLS [BUFFER_MB]
variant() {
    local mode=$1 victim=$2 calls=$3 mb=${4:-} name=$1${4:+-flush}
    local dir="$tmp/$name" start end rc
    start=$(date +%s)
    SYNCTRACE_BUFFER_MB=$mb run_job "$dir" "$mode" "$calls" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    end=$(date +%s)
    diag "$name: mpirun exit status $rc after $((end - start)) s"

    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] && [ $rc -eq "${plain[$mode]}" ]
    ok $? "$name: mpirun's exit status is non-zero and the same as untraced ($rc, untraced ${plain[$mode]}): the failure is not hidden"

    local left
    left=$(pgrep -f "$prog" | tr '\n' ' ')
    [ $rc -ne 124 ] && [ $rc -ne 137 ] && [ -z "$left" ]
    ok $? "$name: the job ends by itself within 25 s, no process left behind"
    # Only processes of this test's own program: end them so that nothing lingers.
    for pid in $left; do kill -9 "$pid" 2>/dev/null; done

    # `synctrace dump` lists a rank only when its archive is complete (has its anchor file).
    local readable=0 r
    "$SYNCTRACE_BIN" dump "$dir" >"$tmp/$name.dump" 2>"$tmp/$name.dumperr" || readable=1
    for r in 0 1 2 3; do
        grep -q "^# rank $r world_size" "$tmp/$name.dump" || { readable=1; diag "$name: no readable archive of rank $r"; }
    done
    [ -s "$tmp/$name.dumperr" ] && diag "$name: $(head -1 "$tmp/$name.dumperr")"
    ok $readable "$name: synctrace dump reads all 4 rank archives"

    readable=0
    for r in 0 1 2 3; do
        "$OTF2_PRINT" "$dir/rank-00000$r.otf2" >/dev/null 2>&1 || { readable=1; diag "$name: otf2-print fails on rank $r"; }
    done
    ok $readable "$name: otf2-print reads all 4 rank archives"

    # The dying rank made CALLS calls of MPI_Topo_test, the others 50 each.
    local bad=0 n want
    for r in 0 1 2 3; do
        want=50
        [ $r -eq "$victim" ] && want=$calls
        n=$(grep -c "^$r [0-9]* ENTER .*region=MPI_Topo_test$" "$tmp/$name.dump")
        m=$(grep -c "^$r [0-9]* LEAVE .*region=MPI_Topo_test$" "$tmp/$name.dump")
        if [ "$n" -ne "$want" ] || [ "$m" -ne "$want" ]; then
            bad=1
            diag "$name: rank $r holds $n/$m MPI_Topo_test enter/leave events, expected $want"
        fi
    done
    grep -q "^DYING rank $victim after $calls calls" "$tmp/$name.out" || { bad=1; diag "$name: rank $victim did not get to its end"; }
    ok $bad "$name: rank $victim holds all its events up to the crash, the others theirs"

    # Open MPI's own report of the fault (its SIGSEGV handler runs after the
    # tracer's) must tell what it tells without the tracer.
    if [ "$mode" = segv ]; then
        report() { grep -E '\] (Signal|Signal code|Failing at address): ' "$1" | sed 's/^\[[^]]*\] //'; }
        [ -n "$(report "$tmp/$name.err")" ] && [ "$(report "$tmp/$name.err")" = "$(report "$tmp/segv.plain.err")" ]
        ok $? "$name: Open MPI's crash report is the one it gives untraced ($(report "$tmp/$name.err" | sed -n 2p))"
    fi

    if [ -n "$mb" ]; then
        n=$(grep -c "^$victim [0-9]* FLUSH " "$tmp/$name.dump")
        [ "$n" -gt 0 ]
        ok $? "$name: rank $victim's buffer was flushed during the run ($n flushes of a $mb MiB buffer)"
    fi
}

variant segv 1 500
variant segv 1 100000 1
variant abort 2 500
variant term 3 500
finish
