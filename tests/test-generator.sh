#!/bin/bash
# The wrapper generator: committed output is current, the spec covers the
# installed mpi.h, bad specs are rejected with file:line, the library
# exports exactly the spec's C functions, and the Fortran wrappers' parameter
# lists are Open MPI's (tests/test-fortran.sh checks the Fortran symbols).
. "$top_srcdir/tests/lib.sh"
plan 13
: "${PYTHON3:=python3}"
gen="$top_srcdir/wrappers/gen-wrappers.py"
spec="$top_srcdir/wrappers/mpi.spec"
tmp=$(scratch)

"$PYTHON3" "$gen" "$spec" "$tmp/gen" >/dev/null 2>&1
stale=0
for f in "$tmp"/gen/* "$tmp"/regions/*; do
    g=${f#"$tmp"/}
    cmp -s "$f" "$top_srcdir/wrappers/$g" || { diag "stale: wrappers/$g"; stale=1; }
done
[ -f "$tmp/regions/regions.h" ] || stale=1
ok $stale "wrappers/gen and wrappers/regions are what the generator makes from the spec (run 'make regen')"

"$PYTHON3" "$top_srcdir/wrappers/check-spec.py" "$spec" mpicc >"$tmp/check" 2>&1
ok $? "the spec lists exactly the functions mpi.h declares: $(tail -1 "$tmp/check")"

reject() {   # reject DESCRIPTION SPEC-TEXT EXPECTED-LINE
    printf '%s\n' "$2" >"$tmp/bad.spec"
    "$PYTHON3" "$gen" "$tmp/bad.spec" "$tmp/badgen" >/dev/null 2>"$tmp/err"
    local rc=$?
    [ $rc -eq 1 ] && grep -q "bad.spec:$3" "$tmp/err"
    ok $? "rejects $1 ($(head -1 "$tmp/err"))"
}
reject "an unknown attribute" $'[p2p point2point]\nint MPI_Send(const void *buf, int count)\n    prefix: x();' 3
reject "a duplicate function" $'[p2p point2point]\nint MPI_Send(int a)\nint MPI_Send(int a)' 3
reject "a line that is not a prototype" $'[p2p point2point]\nMPI_Send is nice' 2
reject "an attribute before any function" $'[p2p point2point]\n    pre: x();' 2
reject "an unknown role" $'[p2p sometimes]\nint MPI_Send(int a)' 1
reject "an unknown Fortran class" $'[p2p point2point]\nint MPI_Send(int a)\n    fortran: maybe' 3
reject "poll-idle: without poll-key:" $'[p2p point2point]\nint MPI_Iprobe(int a, int *flag)\n    poll-idle: !*flag' 2

# Every argument of a converted Fortran binding needs a conversion the generator knows.
printf '[p2p point2point]\nint MPI_Send(const char *name)\n    post: x();\n' >"$tmp/bad.spec"
"$PYTHON3" "$gen" "$tmp/bad.spec" "$tmp/badgen" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad.spec:2: MPI_Send: name cannot be converted" "$tmp/err"
ok $? "rejects a string argument in a converted Fortran binding ($(head -1 "$tmp/err"))"

# The parameters each Fortran wrapper forwards are those of Open MPI's binding.
protos=$(mpicc -showme:incdirs | tr ' ' '\n' | head -1)/openmpi/ompi/mpi/fortran/mpif-h/prototypes_mpi.h
if [ -r "$protos" ]; then
    "$PYTHON3" "$top_srcdir/wrappers/check-fortran.py" "$spec" "$protos" >"$tmp/fcheck" 2>&1
    rc=$?
    ok $rc "Fortran parameter lists agree with Open MPI's prototypes_mpi.h: $(tail -1 "$tmp/fcheck")"
    [ $rc -eq 0 ] || sed 's/^/# /' "$tmp/fcheck" | head -10
else
    skip "Open MPI's prototypes_mpi.h is not installed"
fi

# C names are mixed case (MPI_Send); Fortran ones lower (mpi_send_) or upper case (MPI_SEND).
exported=$(nm -D --defined-only "$SYNCTRACE_LIB" | awk '$2 == "T" && $3 ~ /^MPI_.*[a-z]/ {print $3}' | sort)
listed=$(grep -E '^[A-Za-z]' "$spec" | grep -oE 'MPI_[A-Za-z0-9_]+\(' | tr -d '(' | sort)
[ "$exported" = "$listed" ]
ok $? "libsynctrace.so exports exactly the $(echo "$listed" | wc -l) functions of the spec"

# Every generated wrapper falls through to its own PMPI function.
bad=0
for f in "$top_srcdir"/wrappers/gen/*.c; do
    awk '/^[A-Za-z].* MPI_[A-Za-z0-9_]+\(/ { match($0, /MPI_[A-Za-z0-9_]+\(/); name = substr($0, RSTART, RLENGTH - 1) }
         /return PMPI_/ { match($0, /PMPI_[A-Za-z0-9_]+/); if (substr($0, RSTART + 1, RLENGTH - 1) != name) { print name; exit 1 } }' "$f" || bad=1
done
ok $bad "every wrapper calls the PMPI function of its own name"
finish
