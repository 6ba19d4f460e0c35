#!/bin/bash
# `mpirun -np K synctrace waits OUT` (tools/waits/waits_share.h): the
# merged archive's locations shared among K processes, the workers'
# records streamed to process 0, which writes what one process writes:
# the table on stdout, waits.json (but its seconds_analysis) and
# waits-instances.bin, byte for byte, for K = 1, 2, 3 and more processes
# than locations; on point-to-point messages (a stencil), collectives
# (tree: Reduce + Bcast) and post/start/complete/wait epochs (a traced
# tests/mpi/mpi_waits.c), with --raw, and with process 0's sorters
# spilling (--memory 1; spilled_bytes depends on who sorted what, as it
# does on --jobs). A damaged archive in a worker's share, a full disk
# under process 0's sorters, a missing archive and a bad option: one
# error line, as one process says it, a non-zero exit, no output, no hang.
. "$top_srcdir/tests/lib.sh"
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    plan 1
    skip "no $MPIRUN"
    finish
fi
plan 13
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)
T=20   # seconds: a run that hangs fails

# one OUT REF [OPTIONS]: the one-process run of OUT saved as REF.{txt,json,bin}
one() {
    local out=$1 ref=$2
    shift 2
    "$ST" waits "$out" --json "$@" >"$ref.txt" 2>"$ref.err" \
        && grep -v '"seconds_analysis"\|"spilled_bytes"' "$out/waits.json" >"$ref.json" \
        && cp "$out/waits-instances.bin" "$ref.bin"
}
# same NP OUT REF LABEL [OPTIONS]: mpirun -np NP wrote what one process did; 1 check
same() {
    local np=$1 out=$2 ref=$3 label=$4 rc why=
    shift 4
    rm -f "$out/waits.json" "$out/waits-instances.bin"
    timeout $T "$MPIRUN" --allow-run-as-root --oversubscribe -np "$np" "$ST" waits "$out" --json "$@" \
        >"$ref.np$np.txt" 2>"$ref.np$np.err"
    rc=$?
    [ $rc = 0 ] || why=" (exit $rc: $(head -c 300 "$ref.np$np.err" | tr '\n' ' '))"
    [ $rc = 0 ] && cmp -s "$ref.txt" "$ref.np$np.txt" || why="$why (the table differs)"
    cmp -s "$ref.json" <(grep -v '"seconds_analysis"\|"spilled_bytes"' "$out/waits.json" 2>/dev/null) \
        || why="$why (waits.json differs: $(diff "$ref.json" <(grep -v '"seconds_analysis"\|"spilled_bytes"' \
            "$out/waits.json" 2>/dev/null) | head -4 | tr '\n' ' '))"
    cmp -s "$ref.bin" "$out/waits-instances.bin" || why="$why (waits-instances.bin differs)"
    [ ! -s "$ref.np$np.err" ] || why="$why (said on stderr: $(head -c 200 "$ref.np$np.err"))"
    [ -z "$why" ]
    ok $? "$label: mpirun -np $np wrote what one process writes$why"
}

"$GEN" "$tmp/st" --ranks 8 --pattern stencil2d --iterations 300 --ranks-per-node 2 >/dev/null
"$ST" merge "$tmp/st" -o "$tmp/st.out" >/dev/null 2>&1
one "$tmp/st.out" "$tmp/st" --raw
ok $? "an 8-rank stencil merged, its waits found by one process ($(head -1 "$tmp/st.txt"))"
same 1 "$tmp/st.out" "$tmp/st" "8-rank stencil, --raw" --raw
same 2 "$tmp/st.out" "$tmp/st" "8-rank stencil, --raw" --raw
same 3 "$tmp/st.out" "$tmp/st" "8-rank stencil, --raw" --raw

one "$tmp/st.out" "$tmp/stm" --memory 1
same 2 "$tmp/st.out" "$tmp/stm" "8-rank stencil, process 0 spilling (--memory 1 --jobs 2)" --memory 1 --jobs 2
spilled=$(sed -n 's/.*"spilled_bytes": \([0-9]*\).*/\1/p' "$tmp/st.out/waits.json")
[ "${spilled:-0}" -gt 0 ]
ok $? "... and process 0 spilled ${spilled:-nothing} bytes there"

"$GEN" "$tmp/tree" --ranks 3 --pattern tree --iterations 60 >/dev/null
"$ST" merge "$tmp/tree" -o "$tmp/tree.out" >/dev/null 2>&1
one "$tmp/tree.out" "$tmp/tree"
same 4 "$tmp/tree.out" "$tmp/tree" "Reduce + Bcast on 3 ranks, 4 processes (one reads nothing)"

if prog=$(build_mpi mpi_waits "$tmp" 2>"$tmp/build.err"); then
    SYNCTRACE_SKEW=seed=5,offset_us=3000,drift_ppm=50 run_traced "$tmp/pscw" 4 "$prog" late_post 5 2 >/dev/null 2>&1
    "$ST" merge "$tmp/pscw" -o "$tmp/pscw.out" >/dev/null 2>&1
    one "$tmp/pscw.out" "$tmp/pscw" && grep -q '"late_post"' "$tmp/pscw.json"
    ok $? "tests/mpi/mpi_waits.c late_post traced and merged: one process finds its Late Post"
    same 2 "$tmp/pscw.out" "$tmp/pscw" "post/start/complete/wait epochs"
else
    ok 1 "build tests/mpi/mpi_waits.c: $(head -c 200 "$tmp/build.err")"
    ok 1 "post/start/complete/wait epochs: no trace"
fi

# a damaged location in the worker's share (the last: process 1 of 2)
cp -r "$tmp/st.out" "$tmp/bad"
rm -f "$tmp/bad/waits.json" "$tmp/bad/waits-instances.bin"
last=$(ls "$tmp/bad/traces" | sed -n 's/\.evt$//p' | sort -n | tail -1)
python3 -c "
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
for i in range(200, len(b), 97): b[i] ^= 0x5a
open(p, 'wb').write(b)" "$tmp/bad/traces/$last.evt"
"$ST" waits "$tmp/bad" --json >/dev/null 2>"$tmp/bad.one.err"
rc1=$?
start=$(date +%s)
timeout $T "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$ST" waits "$tmp/bad" --json >"$tmp/bad.out" \
    2>"$tmp/bad.err"
rcn=$?
[ $rc1 = 1 ] && [ $rcn != 0 ] && [ $rcn != 124 ] && [ "$(grep -c '^synctrace waits:' "$tmp/bad.err")" = 1 ] \
    && [ "$(grep '^synctrace waits:' "$tmp/bad.err")" = "$(cat "$tmp/bad.one.err")" ] && [ ! -s "$tmp/bad.out" ] \
    && [ ! -e "$tmp/bad/waits.json" ] && [ ! -e "$tmp/bad/waits-instances.bin" ]
ok $? "a damaged location read by a worker: exit $rcn after $(($(date +%s) - start)) s, said once as one process says it ($(cat "$tmp/bad.one.err")), no output"

# process 0's sorters spill onto a full disk (a file-size limit in the
# processes alone: Open MPI's shared memory needs it lifted, so over tcp)
mkdir "$tmp/spill"
OMPI_MCA_btl=self,tcp timeout $T "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 \
    sh -c "ulimit -f 80; exec '$ST' waits '$tmp/st.out' --memory 1 --jobs 1 --spill-dir '$tmp/spill'" \
    >"$tmp/full.out" 2>"$tmp/full.err"
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ "$(grep -c '^synctrace waits:' "$tmp/full.err")" = 1 ] \
    && grep -q "^synctrace waits: spill file in $tmp/spill" "$tmp/full.err" && [ ! -s "$tmp/full.out" ] \
    && [ -z "$(ls -A "$tmp/spill")" ]
ok $? "a full disk under process 0's sorters, mpirun -np 2: exit $rc, one line ($(grep '^synctrace waits:' "$tmp/full.err"))"

timeout $T "$MPIRUN" --allow-run-as-root --oversubscribe -np 3 "$ST" waits "$tmp/none" >/dev/null 2>"$tmp/none.err"
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ "$(grep -c '^synctrace waits:' "$tmp/none.err")" = 1 ]
ok $? "no archive, mpirun -np 3: exit $rc, one line ($(grep '^synctrace waits:' "$tmp/none.err"))"

timeout $T "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$ST" waits "$tmp/st.out" --no-such >/dev/null \
    2>"$tmp/opt.err"
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ "$(grep -c '^synctrace waits:' "$tmp/opt.err")" = 1 ]
ok $? "a bad option, mpirun -np 2: exit $rc, one line ($(grep '^synctrace waits:' "$tmp/opt.err"))"
finish
