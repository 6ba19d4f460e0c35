#!/bin/bash
# `mpirun -np K synctrace merge FOREIGN -o OUT`: a Score-P experiment or any
# OTF2 archive merged by K processes (tools/foreign/foreign_merge.c): they
# share the conversion, merge the raw trace together (pmerge.h) and copy
# their shares of the locations into the one archive (OTF2's MPI
# collective callbacks). What they write is what one process writes, file
# for file (tests/lib.sh's merged_differences), and they say the same. A
# damaged input, whichever process's share the damage is in, is one
# error line, every process exits non-zero, no OUT and nothing beside it,
# no hang; an OUT that exists is left as it is.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 8
ST="$top_builddir/synctrace"
tmp=$(scratch)
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    for i in $(seq 8); do skip "no $MPIRUN"; done
    finish
fi

# what a merge said on stdout, without its paths and timings
said() {
    sed -E "s#$2(\.tmp-[0-9]+)?#OUT#g; s/\([0-9.]+ s\)//; /^  time /d; /^  foreign time /d" "$1"
}

# same_as_one INPUT OUT NP LABEL: INPUT merged by one process into OUT.one
# (once) and by NP into OUT.npNP; 1 check
same_as_one() {
    local in=$1 out=$2 np=$3 label=$4 diff rc1 rcn
    [ -d "$out.one" ] || { "$ST" merge "$in" -o "$out.one" >"$out.one.out" 2>"$out.one.err"; echo $? >"$out.one.rc"; }
    rc1=$(cat "$out.one.rc")
    run_plain "$np" "$ST" merge "$in" -o "$out.np$np" >"$out.np$np.out" 2>"$out.np$np.err"
    rcn=$?
    diff=$(merged_differences "$out.one" "$out.np$np" | tr '\n' ' ')
    [ "$rc1" = 0 ] && [ $rcn = 0 ] && [ -z "$diff" ] && [ -s "$out.np$np/traces.otf2" ] \
        && grep -q "$np processes)" "$out.np$np.out" \
        && cmp -s <(said "$out.one.out" "$out.one") <(said "$out.np$np.out" "$out.np$np") \
        && cmp -s "$out.one.err" "$out.np$np.err"
    ok $? "$label: mpirun -np $np (exit $rcn) wrote what one process writes, file for file, and said the same${diff:+ (differ: $diff)} $(head -c 300 "$out.np$np.err" | tr '\n' ' ')"
}

st=$top_srcdir/tests/data/scorep/stencil/scorep
same_as_one "$st" "$tmp/stencil" 2 "Score-P stencil (4 processes)"
same_as_one "$st" "$tmp/stencil" 3 "Score-P stencil (4 processes)"
same_as_one "$top_srcdir/tests/data/scorep/hybrid/scorep" "$tmp/hybrid" 3 "Score-P hybrid (4 processes of 2 threads)"
# Score-P's layout written here: threads, an accelerator stream and a
# metric location per process, a PSCW epoch per iteration (its
# notifications made by each share's converter: input.json and
# report.json's rma_orderings the same) (tests/checkers/scorep_like.py)
g=$tmp/like
"$PYTHON3" "$top_srcdir/tests/checkers/scorep_like.py" "$g" --processes 12 --threads 3 --iterations 4 --seed 5 --pscw >"$g.gen" 2>&1
[ -d "$g" ] || diag "scorep_like.py ($PYTHON3) wrote no archive: $(tail -c 300 "$g.gen" | tr '\n' ' ')"
same_as_one "$g" "$g" 2 "generated, 12 processes of 3 threads"
same_as_one "$g" "$g" 3 "generated, 12 processes of 3 threads"

# damaged: a location's event file cut short, in process 0's share (rank
# 0) or the last process's (rank 3); every process's exit status kept
for at in 0 3; do
    d=$tmp/cut$at
    cp -r "$st" "$d"
    f=$d/traces/$at.evt
    truncate -s $(($(stat -c %s "$f") / 2)) "$f"
    SECONDS=0
    run_plain 2 sh -c '"$0" merge "$1" -o "$2" 2>>"$2.err.$OMPI_COMM_WORLD_RANK"; echo "exit $?"' "$ST" "$d" "$d.out" \
        >"$d.status" 2>/dev/null
    rc=$?
    cat "$d.out.err."* >"$d.err" 2>/dev/null
    [ $rc != 124 ] && [ "$(grep -c . "$d.err")" = 1 ] && grep -q "^synctrace merge: $d/traces.otf2: corrupt or truncated events of location $at" "$d.err" \
        && [ "$(grep -c '^exit 1$' "$d.status")" = 2 ] && [ ! -e "$d.out" ] \
        && [ -z "$(ls -d "$d.out."* 2>/dev/null | grep -v '\.err\.')" ]
    ok $? "an event file cut short (location $at): one line, both processes exit 1, no OUT, nothing beside it, in ${SECONDS} s (mpirun $rc): $(head -c 300 "$d.err" | tr '\n' ' ')"
done

# an OUT that exists: refused once, left as it is
mkdir "$tmp/there" && echo keep >"$tmp/there/mine"
run_plain 3 "$ST" merge "$st" -o "$tmp/there" >"$tmp/there.out" 2>"$tmp/there.err"
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ "$(grep -c '^synctrace merge:' "$tmp/there.err")" = 1 ] \
    && [ "$(ls "$tmp/there")" = mine ] && [ -z "$(ls -d "$tmp/there."* 2>/dev/null | grep -v 'there\.\(out\|err\)$')" ]
ok $? "an OUT that exists: refused in one line (exit $rc), left as it is: $(grep '^synctrace' "$tmp/there.err" | head -c 200)"
finish
