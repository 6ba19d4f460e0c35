#!/bin/bash
# test-fortran.sh — Fortran programs are traced like C ones. One program
# (tests/mpi/mpi_fortran.F90) is built three times, with include 'mpif.h', with
# `use mpi` and with `use mpi_f08` (IERROR left out), and its C twin
# (tests/mpi/mpi_fortran_ref.c) once: point-to-point with wildcards and statuses,
# MPI_STATUS(ES)_IGNORE, non-blocking requests completed by MPI_Waitall and
# MPI_Waitany, collectives (MPI_IN_PLACE, MPI_Alltoallw), a communicator
# split and one-sided communication (fence, locks, lock_all, MPI_Rget); and
# tests/mpi/mpi_fortran_cptr.F90, windows allocated with TYPE(C_PTR) pointers.
# Each Fortran program must reach the tracer under the symbol names it
# really calls, check MPI's results itself, and leave raw and merged traces
# with the same events as the C program's (tests/checkers/fortran_check.py).
# Without an MPI Fortran compiler (configure's MPIFORT) every check is SKIP.
. "$top_srcdir/tests/lib.sh"
top_srcdir=$(cd "$top_srcdir" && pwd)   # the Fortran builds run in a scratch directory
: "${PYTHON3:=python3}"
: "${MPIFORT:=}"
np=4
skew=seed=11,offset_us=700,drift_ppm=40
flavours="mpif_h use_mpi use_mpi_f08"
nchecks=$((3 + 2 + 3 + 3 * 14 + 2 + 2))

if [ -z "$MPIFORT" ]; then
    plan "$nchecks"
    for i in $(seq "$nchecks"); do skip "no MPI Fortran compiler (configure found no working mpifort)"; done
    finish
fi
tmp=$(scratch)
lib="$SYNCTRACE_LIB"
mpidir=$(dirname "$(readlink -f "$(mpicc -showme:link | tr ' ' '\n' | sed -n 's/^-L//p' | head -1)/libmpi.so")")
fh_lib="$mpidir/libmpi_mpifh.so"
f08_lib="$mpidir/libmpi_usempif08.so"

# --- the library exports every Fortran spelling Open MPI has
mpi_fortran_symbols() { nm -D --defined-only "$1" | awk '{print $3}' | grep -E "$2" | sort -u; }
ours=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
spec_names=$(grep -E '^[A-Za-z]' "$top_srcdir/wrappers/mpi.spec" | grep -oE 'MPI_[A-Za-z0-9_]+\(' | tr -d '(' | tr 'A-Z' 'a-z')
if [ -r "$fh_lib" ] && [ -r "$f08_lib" ]; then
    missing=""
    n=0
    for f in $spec_names; do
        # Only what Open MPI itself binds (MPI_T_*, the conversion functions have no Fortran binding).
        grep -qx "${f}_" <<<"$(mpi_fortran_symbols "$fh_lib" "^${f}_\$")" || continue
        for s in "$f" "${f}_" "${f}__" "$(tr 'a-z' 'A-Z' <<<"$f")"; do
            n=$((n + 1))
            grep -qx "$s" <<<"$ours" || missing="$missing $s"
        done
        if nm -D --defined-only "$f08_lib" | grep -q " ${f}_f08_\$"; then
            n=$((n + 1))
            grep -qx "${f}_f08_" <<<"$ours" || missing="$missing ${f}_f08_"
        fi
    done
    [ -z "$missing" ] && [ "$n" -gt 1000 ]
    ok $? "libsynctrace.so exports all $n Fortran symbols Open MPI has for the spec's functions${missing:+ (missing:$(echo $missing | cut -c1-200))}"
    # ...and no Fortran symbol Open MPI does not have (a typo would shadow nothing and trace nothing).
    extra=$(comm -23 <(grep -E '^(mpi_|MPI_[A-Z0-9_]+$)' <<<"$ours" | grep -vE '^MPI_[A-Za-z0-9_]*[a-z]') \
        <(cat <(nm -D --defined-only "$fh_lib" | awk '{print $3}') <(nm -D --defined-only "$f08_lib" | awk '{print $3}') | sort -u))
    [ -z "$extra" ]
    ok $? "every Fortran symbol libsynctrace.so exports is one Open MPI defines${extra:+ (not: $(echo $extra | cut -c1-200))}"
    # A region around Open MPI's Fortran binding records once only if that
    # binding calls PMPI_*, never an MPI_* function the tracer wraps.
    calls=$(nm -D -u "$fh_lib" "$f08_lib" | awk '$2 ~ /^MPI_[A-Z][a-z]/ {print $2}' | sort -u)
    [ -z "$calls" ]
    ok $? "Open MPI's Fortran libraries call no MPI_* C function${calls:+ (they call: $(echo $calls | cut -c1-200))}"
else
    skip "Open MPI's Fortran libraries not found in $mpidir"
    skip "Open MPI's Fortran libraries not found in $mpidir"
    skip "Open MPI's Fortran libraries not found in $mpidir"
fi

# --- build
# gfortran 10 and later reject mpif.h programs passing a scalar and an array
# to one MPI routine unless told to allow it.
fortran_mismatch_flag() {
    printf 'end\n' >"$tmp/flag.f90"
    "$MPIFORT" -fallow-argument-mismatch -c -o "$tmp/flag.o" "$tmp/flag.f90" 2>/dev/null && echo -fallow-argument-mismatch
}
build_ok=0
mpicc -std=c11 -O1 -Wall -Wextra -o "$tmp/c_ref" "$top_srcdir/tests/mpi/mpi_fortran_ref.c" 2>"$tmp/build.err"
ok $? "build tests/mpi/mpi_fortran_ref.c"
for fl in $flavours; do
    case $fl in
    mpif_h) def=$(fortran_mismatch_flag) ;;
    use_mpi) def=-DBINDING_USE_MPI ;;
    use_mpi_f08) def=-DBINDING_F08 ;;
    esac
    (cd "$tmp" && "$MPIFORT" -ffree-line-length-none -O1 $def -o "$tmp/$fl" "$top_srcdir/tests/mpi/mpi_fortran.F90") \
        2>>"$tmp/build.err" || build_ok=1
done
ok $build_ok "build tests/mpi/mpi_fortran.F90 with include 'mpif.h', use mpi and use mpi_f08"
[ $build_ok -eq 0 ] || sed 's/^/# /' "$tmp/build.err" | head -20

# trace PROGRAM NAME: traced run, program output, dump and merge; results in $tmp/NAME.*
trace() {
    local prog=$1 name=$2 rc
    SYNCTRACE_SKEW=$skew run_traced "$tmp/$name.trace" "$np" "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    sort -o "$tmp/$name.out" "$tmp/$name.out"
    "$SYNCTRACE_BIN" dump "$tmp/$name.trace" >"$tmp/$name.dump" 2>>"$tmp/$name.err" || rc=1
    "$SYNCTRACE_BIN" merge "$tmp/$name.trace" -o "$tmp/$name.merged" >/dev/null 2>>"$tmp/$name.err" || rc=1
    "${OTF2_PRINT:-otf2-print}" "$tmp/$name.merged/traces.otf2" >"$tmp/$name.print" 2>>"$tmp/$name.err" || rc=1
    return $rc
}
expected_out=$(for r in $(seq 0 $((np - 1))); do echo "rank $r errors 0"; done)

trace "$tmp/c_ref" c_ref
ok $? "C twin: traced, dumped and merged"
[ "$(cat "$tmp/c_ref.out")" = "$expected_out" ]
ok $? "C twin: MPI's results are right on every rank"
# The twins' comparison covers one-sided communication only if the C
# program's merged trace has it: a named window, put, get, atomics, locks.
for e in 'RMA_PUT .*Window: "fortran window"' RMA_GET 'RMA_ATOMIC .*COMPARE_AND_SWAP' RMA_OP_COMPLETE_REMOTE \
         RMA_OP_COMPLETE_NON_BLOCKING RMA_REQUEST_LOCK RMA_RELEASE_LOCK 'RMA_WIN_CREATE .*<1>'; do
    grep -q "^$e" "$tmp/c_ref.print" || { echo "# no $e"; false; } || break
done
ok $? "C twin: the merged trace has its one-sided operations, local completions, locks, both windows and a name"

for fl in $flavours; do
    prog=$tmp/$fl
    case $fl in
    use_mpi_f08) sym=mpi_waitall_f08_ ;;
    *) sym=mpi_waitall_ ;;
    esac
    # The program calls Open MPI's Fortran symbols, which the tracer overrides.
    nm -u "$prog" 2>/dev/null | grep -q " $sym\$"
    ok $? "$fl: the program calls $sym"
    nm -u "$prog" 2>/dev/null | awk '$2 ~ /^mpi_/ {print $2}' | sort -u >"$tmp/$fl.imports"
    missing=$(comm -23 "$tmp/$fl.imports" <(echo "$ours"))
    [ -s "$tmp/$fl.imports" ] && [ -z "$missing" ]
    ok $? "$fl: libsynctrace.so defines all $(wc -l <"$tmp/$fl.imports") MPI symbols it imports${missing:+ (not: $missing)}"

    run_plain "$np" "$prog" 2>"$tmp/$fl.plain.err" | sort >"$tmp/$fl.plain"
    [ "$(cat "$tmp/$fl.plain")" = "$expected_out" ]
    ok $? "$fl: untraced, MPI's results are right on every rank"
    trace "$prog" "$fl"
    rc=$?
    ok $rc "$fl: traced, dumped and merged"
    [ $rc -eq 0 ] || sed 's/^/# /' "$tmp/$fl.err" | head -10
    [ "$(cat "$tmp/$fl.out")" = "$expected_out" ]
    ok $? "$fl: traced, MPI's results are right on every rank (the wrappers convert faithfully)"
    ! grep -qE '\[OTF2\]|synctrace' "$tmp/$fl.err"
    ok $? "$fl: no OTF2 or tracer messages on stderr"
    grep -qE "ENTER .*region=MPI_Init$" "$tmp/$fl.dump" && grep -q " RECV .*tag=50" "$tmp/$fl.dump"
    ok $? "$fl: the trace holds MPI_Init and the receive on the split communicator"
    "$PYTHON3" "$top_srcdir/tests/checkers/fortran_check.py" raw "$tmp/c_ref.dump" "$tmp/$fl.dump" >"$tmp/$fl.check" 2>&1
    ok $? "$fl: raw trace checker ran"
    tap_from_checker "$fl: " "$tmp/$fl.check"
    "$PYTHON3" "$top_srcdir/tests/checkers/fortran_check.py" merged "$tmp/c_ref.print" "$tmp/$fl.print" >"$tmp/$fl.mcheck" 2>&1
    ok $? "$fl: merged trace checker ran"
    tap_from_checker "$fl: " "$tmp/$fl.mcheck"
    json() { "$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }
    [ "$(json "$tmp/$fl.merged/report.json" tachyons_after 2>/dev/null)" = 0 ]
    ok $? "$fl: no tachyon after the merge"
done

# A run that is not traced the Fortran way would record nothing: the
# comparison above would then fail. Check that the checker notices.
grep -v ' region=MPI_Waitall' "$tmp/use_mpi_f08.dump" >"$tmp/broken.dump"
"$PYTHON3" "$top_srcdir/tests/checkers/fortran_check.py" raw "$tmp/c_ref.dump" "$tmp/broken.dump" 2>&1 | grep -q '^not ok - raw trace: the same'
ok $? "the checker fails a trace with the MPI_Waitall regions missing"
sed 's/Tag: 40,/Tag: 41,/' "$tmp/use_mpi_f08.print" >"$tmp/broken.print"
"$PYTHON3" "$top_srcdir/tests/checkers/fortran_check.py" merged "$tmp/c_ref.print" "$tmp/broken.print" 2>&1 | grep -q '^not ok'
ok $? "the checker fails a merged trace with one tag changed"

# Windows allocated with a TYPE(C_PTR) base pointer (`use mpi`): Open MPI's
# mpi_win_allocate_cptr_ and friends, not in mpi.h (src/fortran_cptr.c).
cptr=$tmp/cptr
if (cd "$tmp" && "$MPIFORT" -O1 -o "$cptr" "$top_srcdir/tests/mpi/mpi_fortran_cptr.F90") 2>"$tmp/cptr.build" \
    && nm -u "$cptr" | grep -q ' mpi_win_allocate_cptr_$'; then
    trace "$cptr" cptr
    rc=$?
    [ $rc -eq 0 ] && [ "$(cat "$tmp/cptr.out")" = "$expected_out" ]
    ok $? "cptr: MPI_Win_allocate(_shared) with a TYPE(C_PTR) base: traced and merged, MPI's results right"
    n() { grep -cE "$1" "$tmp/cptr.print"; }
    [ "$(n '^RMA_WIN_CREATE .*"cptr window"')" = $np ] && [ "$(n '^RMA_WIN_CREATE .*"cptr shared"')" = $np ] \
        && [ "$(n '^RMA_PUT .*"cptr window"')" = $np ] && [ "$(n '^RMA_PUT .*"cptr shared"')" = $np ] \
        && [ "$(n '^ENTER .*"MPI_Win_shared_query"')" = $np ]
    ok $? "cptr: both windows created, named and put to on every rank, MPI_Win_shared_query recorded"
else
    sed 's/^/# /' "$tmp/cptr.build" | head -5
    ok 1 "cptr: build tests/mpi/mpi_fortran_cptr.F90 (it must call mpi_win_allocate_cptr_)"
    ok 1 "cptr: no program"
fi

plan "$_tap_n"
finish
