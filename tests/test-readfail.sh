#!/bin/bash
# A disk that fails under the merge: every read of its --spill-dir fails
# (EIO, from tests/pread_fails.c preloaded) from the N-th on, for N
# spread over a whole run that sets everything aside there (the match's
# sorts, the events and the matched messages, the true times, the
# repair's files and its repaired times, the comparison with the
# controlled logical clock). However far the merge got, it ends with exit
# 1 and one line saying which read failed and where (a warning that the
# optional comparison could not run may come before it), writes no
# output and leaves nothing in the spill directory; never exit 0 with
# times a failed read gave as 0. The same under `mpirun -np 2`, where
# each process fails from its own N-th read on: no hang, no output.
. "$top_srcdir/tests/lib.sh"
plan 3
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)
spill=$tmp/spill
mkdir "$spill"

# 8 ranks two to a node with true times, drifts the line model cannot
# follow (the repair runs), everything set aside (--event-memory 0,
# --sort-memory 1), one thread so that the reads come in one order.
"$GEN" "$tmp/raw" --ranks 8 --ranks-per-node 2 --pattern stencil2d --iterations 400 --drift-slope 3000 \
    --compute-us 100 --latency-ns 100 >/dev/null
opts=(--drift-model line --jobs 1 --event-memory 0 --sort-memory 1 --spill-dir "$spill")
shim() {   # shim OUT [VAR=VALUE...]: the merge with reads in $spill failing as the variables say
    local out=$1
    shift
    timeout 60 env PREAD_FAILS_DIR="$spill" LD_PRELOAD="$tmp/pf.so" "$@" "$ST" merge "$tmp/raw" -o "$out" \
        "${opts[@]}" >/dev/null
}
# said_once ERR: one line naming the spill directory, a comparison's warning aside
said_once() {
    local lines
    lines=$(grep -v '^synctrace merge: warning: no comparison with the controlled logical clock: ' "$1")
    [ "$(printf '%s\n' "$lines" | grep -c .)" = 1 ] && grep -q "^synctrace merge: .*$spill.*: Input/output error$" <<<"$lines"
}

n=0
if cc -shared -fPIC -O1 -o "$tmp/pf.so" "$top_srcdir/tests/pread_fails.c" -ldl 2>"$tmp/cc.err"; then
    shim "$tmp/counted" PREAD_FAILS_COUNT="$tmp/count" 2>"$tmp/count.err"
    rc=$?
    n=$(cat "$tmp/count" 2>/dev/null || echo 0)
    [ $rc = 0 ] && [ ! -s "$tmp/count.err" ] && [ "$n" -gt 100 ] \
        && [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['repair']['applied'])" \
            "$tmp/counted/report.json")" = True ]
    ok $? "the shim builds; the merge reads $n times from --spill-dir, repairs, exit $rc"
else
    ok 1 "the shim tests/pread_fails.c builds: $(head -1 "$tmp/cc.err")"
fi

# N: the first reads, the last ones, and 24 spread between
points=""
if [ "$n" -gt 100 ]; then
    points="0 1 2 $((n - 2)) $((n - 1))"
    for k in $(seq 1 24); do points="$points $((k * n / 25))"; done
fi
why=""
for a in $points; do
    rm -rf "$tmp/out"
    shim "$tmp/out" PREAD_FAILS_AFTER="$a" 2>"$tmp/err"
    rc=$?
    if [ $rc != 1 ] || ! said_once "$tmp/err" || [ -n "$(ls -A "$tmp" | grep '^out')" ] || [ -n "$(ls -A "$spill")" ]; then
        why="$why after $a: exit $rc, $(head -3 "$tmp/err" | tr '\n' '|');"
    fi
done
[ -n "$points" ] && [ -z "$why" ]
ok $? "reads failing from the N-th on, $(wc -w <<<"$points") values of N over the $n reads: exit 1, one line, no output, nothing left${why:+:$why}"

# Under mpirun: each process fails from its own N-th read on, N below
# the fewest reads a process makes (counted first).
rm -f "$tmp/pcount"
run_plain 2 -x PREAD_FAILS_DIR="$spill" -x PREAD_FAILS_COUNT="$tmp/pcount" -x LD_PRELOAD="$tmp/pf.so" \
    "$ST" merge "$tmp/raw" -o "$tmp/pcounted" "${opts[@]}" >/dev/null 2>&1
least=$(sort -n "$tmp/pcount" 2>/dev/null | head -1)
why=""
[ "${least:-0}" -gt 10 ] || why=" the processes' reads not counted ($(tr '\n' ' ' <"$tmp/pcount" 2>/dev/null));"
for a in ${points:+0 $((least / 4)) $((least / 2)) $((least - 1))}; do
    rm -rf "$tmp/pout"
    run_plain 2 -x PREAD_FAILS_DIR="$spill" -x PREAD_FAILS_AFTER="$a" -x LD_PRELOAD="$tmp/pf.so" \
        "$ST" merge "$tmp/raw" -o "$tmp/pout" "${opts[@]}" >/dev/null 2>"$tmp/perr"
    rc=$?
    if [ $rc = 0 ] || [ $rc = 124 ] || ! grep -q "^synctrace merge: .*$spill.*Input/output error$" "$tmp/perr" \
        || [ -n "$(ls -A "$tmp" | grep '^pout')" ] || [ -n "$(ls -A "$spill")" ]; then
        why="$why after $a: exit $rc, $(grep '^synctrace' "$tmp/perr" | head -2 | tr '\n' '|');"
    fi
done
[ -n "$points" ] && [ -z "$why" ]
ok $? "mpirun -np 2, reads failing from the N-th on in each process (its fewest reads: $least): no hang, an error naming --spill-dir, no output${why:+:$why}"
finish
