#!/bin/bash
# test-viewers.sh — every kind of merged archive opens in the readers users
# have: ViTE's headless export (a row per location, an arrow per message, no
# parse error or warning, no abort), otf2-print and otf2-snapshots
# (tests/checkers/viewer_check.py). Kinds: the bundled example, communicators of every
# kind, MPI_COMM_SELF and intercommunicators, threads, spawned jobs, a rank
# killed and recovered, a Fortran program. The raw per-rank archives too, for
# their names (ViTE cannot draw one alone: its messages name ranks that live
# in the other archives; README, "Viewing the result", says so).
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
: "${VITE:=vite}"
export VITE
N=$((7 * 13 + 2))
plan $N

if ! command -v "$VITE" >/dev/null 2>&1; then
    for i in $(seq $N); do skip "ViTE not installed (Debian's vite)"; done
    finish
fi
tmp=$(scratch)
skew=seed=5,offset_us=800,drift_ppm=30

# merged LABEL RAW [--some-arrows]: merge RAW and open the result as a viewer
# would (13 checks).
merged() {
    local label=$1 raw=$2 out=$tmp/${1// /_}
    "$SYNCTRACE_BIN" merge "$raw" -o "$out" >"$out.merge" 2>&1
    local rc=$?
    ok $rc "$label: synctrace merge (exit $rc)"
    [ $rc -eq 0 ] || { sed 's/^/# /' "$out.merge" | head -5; }
    "$PYTHON3" "$top_srcdir/tests/checkers/viewer_check.py" "$out/traces.otf2" "$out.view" ${3:-} >"$out.check" 2>&1
    rc=$?
    tap_from_checker "$label: " "$out.check"
    ok $([ $rc -eq 0 ] && [ "$(grep -c '^ok - \|^not ok - ' "$out.check")" -eq 11 ]; echo $?) \
        "$label: the reader checks ran to the end"
}

# traced LABEL NP PROG ARGS...: the program traced with skewed clocks into $tmp/LABEL.raw
traced() {
    local label=$1 np=$2 raw=$tmp/${1// /_}.raw
    shift 2
    SYNCTRACE_SKEW=$skew run_traced "$raw" "$np" "$@" >"$raw.out" 2>"$raw.err"
    echo "$raw"
}

stencil=$(traced "stencil" 4 "$top_builddir/examples/stencil")
merged "bundled example (4 ranks)" "$stencil"

prog=$(build_mpi mpi_comms "$tmp") && merged "communicators of every kind" "$(traced comms 4 "$prog")" --some-arrows \
    || for i in $(seq 13); do ok 1 "build tests/mpi/mpi_comms.c"; done

prog=$(build_mpi mpi_intercoll "$tmp") && merged "MPI_COMM_SELF and intercommunicator collectives" \
    "$(traced intercoll 4 "$prog")" || for i in $(seq 13); do ok 1 "build tests/mpi/mpi_intercoll.c"; done

if mpicc -std=c11 -D_GNU_SOURCE -O1 -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" 2>"$tmp/build.err"; then
    merged "4 threads per rank" "$(traced threads 3 "$tmp/mpi_threads" 10)" --mpi-on-threads
else
    for i in $(seq 13); do ok 1 "build tests/mpi/mpi_threads.c"; done
fi

prog=$(build_mpi mpi_spawn "$tmp") && merged "spawned jobs" "$(traced spawn 2 "$prog" 2)" --some-arrows \
    || for i in $(seq 13); do ok 1 "build tests/mpi/mpi_spawn.c"; done

# rank 2 kills itself with SIGKILL; mpirun ends the others
if prog=$(build_mpi mpi_kill9 "$tmp"); then
    SYNCTRACE_BUFFER_MB=1 SYNCTRACE_SKEW=$skew run_traced "$tmp/killed.raw" 4 "$prog" 20000 >/dev/null 2>&1
    merged "a killed rank recovered" "$tmp/killed.raw"
else
    for i in $(seq 13); do ok 1 "build tests/mpi/mpi_kill9.c"; done
fi

if [ -n "${MPIFORT:-}" ] && "$MPIFORT" -O1 -o "$tmp/heat" "$top_srcdir/examples/heat.f90" 2>"$tmp/fbuild.err"; then
    merged "a Fortran program" "$(traced fortran 4 "$tmp/heat")"
else
    for i in $(seq 13); do skip "no MPI Fortran compiler (configure found no working mpifort)"; done
fi

# The raw archives: locations named as Score-P names them, never as their
# process, so that no two of a viewer's rows share a name.
otf2-print -G "$stencil/rank-000001.otf2" >"$tmp/raw.defs" 2>&1
grep -q '^LOCATION_GROUP  *0  Name: "MPI Rank 1"' "$tmp/raw.defs" \
    && grep -q '^LOCATION  *1  Name: "Master thread" <[0-9]*>, Type: CPU_THREAD, # Events: [0-9]*, Group: "MPI Rank 1"' "$tmp/raw.defs"
ok $? "raw archive: process \"MPI Rank 1\", its location \"Master thread\""
threads_raw=$tmp/threads.raw
otf2-print -G "$threads_raw/rank-000000.otf2" 2>&1 | grep '^LOCATION ' >"$tmp/raw.threads"
[ "$(grep -c 'Name: "Pthread thread [0-9]*"' "$tmp/raw.threads")" -ge 1 ] \
    && [ "$(sed 's/ *Type.*//' "$tmp/raw.threads" | awk '{print $NF}' | sort | uniq -d)" = "" ]
ok $? "raw archive with threads: \"Master thread\" and \"Pthread thread K\", no name twice ($(wc -l <"$tmp/raw.threads") locations)"
finish
