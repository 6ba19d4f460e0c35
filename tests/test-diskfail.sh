#!/bin/bash
# A disk that fails or fills under the merge: every read of its
# --spill-dir fails (EIO), or every write to it (ENOSPC), from the N-th
# on (tests/shims/pread_fails.c, preloaded), for N spread over a whole run that
# sets everything aside there (the match's sorts, the events and the
# matched messages, the true times, the repair's files and its repaired
# times, the comparison with the controlled logical clock). However far
# the merge got, it ends with exit 1 and one line saying what failed and
# where (a warning that an optional comparison, with the controlled
# logical clock or with true time, could not run may come before it),
# writes no output and leaves nothing in the spill directory; never exit
# 0 with times a failed read gave as 0. Only a failure inside those
# comparisons lets the merge finish, with the warning alone. The same under
# `mpirun -np 2`, where each process fails from its own N-th call on: no
# hang, no output. And the tracer on a disk that fills under the traced
# program: the program's output and exit status are untouched, and what
# was written still merges or is refused in one line.
. "$top_srcdir/tests/lib.sh"
plan 9
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)
spill=$tmp/spill
mkdir "$spill"
# what the merge may go on without, with a warning: the comparisons with
# the controlled logical clock and with true time
OPTIONAL='^synctrace merge: warning: no comparison with \(the controlled logical clock\|true time\): '

# 8 ranks two to a node with true times, drifts the line model cannot
# follow (the repair runs), everything set aside (--event-memory 0,
# --sort-memory 1), one thread so that the calls come in one order.
"$GEN" "$tmp/raw" --ranks 8 --ranks-per-node 2 --pattern stencil2d --iterations 400 --drift-slope 3000 \
    --compute-us 100 --latency-ns 100 >/dev/null
opts=(--drift-model line --jobs 1 --event-memory 0 --sort-memory 1 --spill-dir "$spill")
shim() {   # shim OUT [VAR=VALUE...]: the merge with calls in $spill failing as the variables say
    local out=$1
    shift
    timeout 60 env PREAD_FAILS_DIR="$spill" LD_PRELOAD="$tmp/pf.so" "$@" "$ST" merge "$tmp/raw" -o "$out" \
        "${opts[@]}" >/dev/null
}
# failed_once RC ERR OUT PROBLEM: exit 1, one line naming the spill
# directory and PROBLEM (the comparisons' warnings aside), no OUT,
# nothing left; or exit 0 with a complete OUT when only they failed
failed_once() {
    local rc=$1 err=$2 out=$3 problem=$4 lines
    [ -z "$(ls -A "$spill")" ] || return 1
    lines=$(grep -v "$OPTIONAL" "$err")
    if [ "$rc" = 0 ]; then
        [ -z "$lines" ] && grep -q "$OPTIONAL" "$err" && [ -s "$out/traces.otf2" ] && [ -s "$out/report.json" ]
        return
    fi
    [ "$rc" = 1 ] && [ "$(printf '%s\n' "$lines" | grep -c .)" = 1 ] \
        && grep -q "^synctrace merge: .*$spill.*: $problem$" <<<"$lines" \
        && [ -z "$(ls -A "$(dirname "$out")" | grep "^$(basename "$out")")" ]
}

built=0
if cc -shared -fPIC -O1 -o "$tmp/pf.so" "$top_srcdir/tests/shims/pread_fails.c" -ldl 2>"$tmp/cc.err"; then
    built=1
    shim "$tmp/counted" PREAD_FAILS_COUNT="$tmp/reads" 2>"$tmp/count.err" &&
        shim "$tmp/counted2" PREAD_FAILS_COUNT="$tmp/writes" PREAD_FAILS_WRITES=1 2>>"$tmp/count.err"
    rc=$?
    reads=$(cat "$tmp/reads" 2>/dev/null || echo 0)
    writes=$(cat "$tmp/writes" 2>/dev/null || echo 0)
    [ $rc = 0 ] && [ ! -s "$tmp/count.err" ] && [ "$reads" -gt 100 ] && [ "$writes" -gt 100 ] \
        && [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['repair']['applied'])" \
            "$tmp/counted/report.json")" = True ]
    ok $? "the shim builds; the merge reads $reads times from --spill-dir and writes $writes times, repairs, exit $rc"
else
    ok 1 "the shim tests/shims/pread_fails.c builds: $(head -1 "$tmp/cc.err")"
fi

# sweep N_CALLS [VAR=VALUE...]: calls failing from the first, second,
# third, the last two and 24 spread between; what went wrong into $why
sweep() {
    local n=$1 a rc points
    shift
    points="0 1 2 $((n - 2)) $((n - 1))"
    for k in $(seq 1 24); do points="$points $((k * n / 25))"; done
    why=""
    for a in $points; do
        rm -rf "$tmp/out"
        shim "$tmp/out" PREAD_FAILS_AFTER="$a" "$@" 2>"$tmp/err"
        rc=$?
        failed_once $rc "$tmp/err" "$tmp/out" "$problem" \
            || why="$why after $a: exit $rc, $(head -3 "$tmp/err" | tr '\n' '|');"
    done
}
problem="Input/output error"
[ $built = 1 ] && sweep "$reads"
[ $built = 1 ] && [ -z "$why" ]
ok $? "reads failing from the N-th on, 29 values of N over the $reads: exit 1, one line, no output, nothing left${why:+:$why}"
problem="No space left on device"
[ $built = 1 ] && sweep "$writes" PREAD_FAILS_WRITES=1
[ $built = 1 ] && [ -z "$why" ]
ok $? "writes failing from the N-th on, 29 values of N over the $writes: exit 1, one line, no output, nothing left (or only a comparison missing)${why:+:$why}"

# Under mpirun: each process fails from its own N-th call on, N below
# the fewest calls a process makes (counted first).
# psweep KIND [VAR=VALUE...]
psweep() {
    local kind=$1 least a rc
    shift
    rm -f "$tmp/pcount"
    run_plain 2 -x PREAD_FAILS_DIR="$spill" -x PREAD_FAILS_COUNT="$tmp/pcount" -x LD_PRELOAD="$tmp/pf.so" \
        ${1:+-x "$1"} "$ST" merge "$tmp/raw" -o "$tmp/pcounted.$kind" "${opts[@]}" >/dev/null 2>&1
    least=$(sort -n "$tmp/pcount" 2>/dev/null | head -1)
    why=""
    [ "${least:-0}" -gt 10 ] || why=" the processes' calls not counted ($(tr '\n' ' ' <"$tmp/pcount" 2>/dev/null));"
    for a in ${least:+0 $((least / 4)) $((least / 2)) $((least - 1))}; do
        rm -rf "$tmp/pout"
        run_plain 2 -x PREAD_FAILS_DIR="$spill" -x PREAD_FAILS_AFTER="$a" -x LD_PRELOAD="$tmp/pf.so" \
            ${1:+-x "$1"} "$ST" merge "$tmp/raw" -o "$tmp/pout" "${opts[@]}" >/dev/null 2>"$tmp/perr"
        rc=$?
        if [ $rc = 0 ] || [ $rc = 124 ] || ! grep -q "^synctrace merge: .*$spill.*$problem$" "$tmp/perr" \
            || [ -n "$(ls -A "$tmp" | grep '^pout')" ] || [ -n "$(ls -A "$spill")" ]; then
            why="$why after $a: exit $rc, $(grep '^synctrace' "$tmp/perr" | head -2 | tr '\n' '|');"
        fi
    done
    echo "$least" >"$tmp/least.$kind"
}
problem="Input/output error"
[ $built = 1 ] && psweep reads
[ $built = 1 ] && [ -z "$why" ]
ok $? "mpirun -np 2, reads failing from the N-th on in each process (its fewest: $(cat "$tmp/least.reads" 2>/dev/null)): no hang, an error naming --spill-dir, no output${why:+:$why}"
problem="No space left on device"
[ $built = 1 ] && psweep writes PREAD_FAILS_WRITES=1
[ $built = 1 ] && [ -z "$why" ]
ok $? "mpirun -np 2, writes failing from the N-th on in each process (its fewest: $(cat "$tmp/least.writes" 2>/dev/null)): no hang, an error naming --spill-dir, no output${why:+:$why}"

# Writes failing in OUT's own directory (the causal index's files and
# the index itself, the raw-view map's breakpoints; OTF2 writes its
# archive through stdio, which the shim does not see): the index is
# optional, so the merge either drops it with one warning (exit 0, the
# archive whole, the report saying so) or fails in one line; OUT.tmp
# never stays.
why=""
if [ $built = 1 ]; then
    mkdir "$tmp/od"
    rm -f "$tmp/ocount"
    timeout 60 env PREAD_FAILS_DIR="$tmp/od" PREAD_FAILS_WRITES=1 PREAD_FAILS_COUNT="$tmp/ocount" \
        LD_PRELOAD="$tmp/pf.so" "$ST" merge "$tmp/raw" -o "$tmp/od/out" "${opts[@]}" >/dev/null 2>&1
    n=$(cat "$tmp/ocount" 2>/dev/null || echo 0)
    [ "$n" -gt 10 ] || why=" $n writes counted;"
    for a in $( [ "$n" -gt 10 ] && { echo 0 1 $((n - 2)) $((n - 1)); for k in $(seq 1 12); do echo $((k * n / 13)); done; } ); do
        rm -rf "$tmp/od/out"
        timeout 60 env PREAD_FAILS_DIR="$tmp/od" PREAD_FAILS_WRITES=1 PREAD_FAILS_AFTER="$a" LD_PRELOAD="$tmp/pf.so" \
            "$ST" merge "$tmp/raw" -o "$tmp/od/out" "${opts[@]}" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ $rc = 0 ]; then
            grep -q "^synctrace merge: warning: no causal index: .*No space left on device$" "$tmp/err" \
                && [ "$(wc -l <"$tmp/err")" = 1 ] && [ -s "$tmp/od/out/traces.otf2" ] && [ ! -e "$tmp/od/out/causal.idx" ] \
                && [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['causal_index']['built'])" \
                    "$tmp/od/out/report.json")" = False ]
        else
            [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/od/out" ]
        fi || why="$why after $a: exit $rc, $(head -2 "$tmp/err" | tr '\n' '|');"
        [ -z "$(ls -A "$tmp/od" | grep -v '^out$')" ] || why="$why after $a: $(ls -A "$tmp/od" | tr '\n' ' ') left;"
    done
fi
[ $built = 1 ] && [ -z "$why" ]
ok $? "writes failing in OUT's directory from the N-th on (16 values of N over $n): the index dropped with one warning and the report saying so, or one line and no output${why:+:$why}"

# Reads of the raw trace itself failing (its checksums, definitions,
# memberships; the event files are read through stdio): at every N, one
# line naming the file and the I/O error, never "corrupt" (the trace is
# whole, the disk is not), exit 1, no output.
why=""
if [ $built = 1 ]; then
    rm -f "$tmp/rcount"
    timeout 60 env PREAD_FAILS_DIR="$tmp/raw" PREAD_FAILS_COUNT="$tmp/rcount" LD_PRELOAD="$tmp/pf.so" \
        "$ST" merge "$tmp/raw" -o "$tmp/rout" --jobs 1 --no-causal >/dev/null 2>&1
    n=$(cat "$tmp/rcount" 2>/dev/null || echo 0)
    [ "$n" -gt 10 ] || why=" $n reads counted;"
    for a in $( [ "$n" -gt 10 ] && seq 0 $((n - 1)) ); do
        rm -rf "$tmp/rout"
        timeout 60 env PREAD_FAILS_DIR="$tmp/raw" PREAD_FAILS_AFTER="$a" LD_PRELOAD="$tmp/pf.so" \
            "$ST" merge "$tmp/raw" -o "$tmp/rout" --jobs 1 --no-causal >/dev/null 2>"$tmp/err"
        rc=$?
        [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^synctrace merge: $tmp/raw/.*: Input/output error$" "$tmp/err" \
            && ! grep -q corrupt "$tmp/err" && [ -z "$(ls -A "$tmp" | grep '^rout')" ] \
            || why="$why after $a: exit $rc, $(head -2 "$tmp/err" | tr '\n' '|');"
    done
fi
[ $built = 1 ] && [ -z "$why" ]
ok $? "reads of the raw trace failing from the N-th on (every N of its $n): one line naming the file and the I/O error, not 'corrupt', no output${why:+:$why}"

# The tracer's writes failing (ENOSPC) from the N-th on in each rank of
# examples/stencil (-np 4): the program says what it says untraced and
# exits 0; the merge then takes what was written, or refuses it in one
# line.
why=""
stencil="$top_builddir/examples/stencil"
make -C "$top_builddir" examples/stencil >"$tmp/make.log" 2>&1
if [ $built = 1 ] && [ -x "$stencil" ] && run_plain 4 "$stencil" >"$tmp/stencil.ref" 2>/dev/null; then
    for a in 0 10 1000000; do   # (1000000: nothing fails)
        rm -rf "$tmp/tw" "$tmp/tw.out"
        mkdir "$tmp/tw"
        run_plain 4 -x LD_PRELOAD="$tmp/pf.so:$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$tmp/tw/run" \
            -x PREAD_FAILS_DIR="$tmp/tw" -x PREAD_FAILS_WRITES=1 -x PREAD_FAILS_AFTER="$a" \
            "$stencil" >"$tmp/stencil.out" 2>"$tmp/stencil.err"
        rc=$?
        [ $rc = 0 ] && cmp -s "$tmp/stencil.out" "$tmp/stencil.ref" || why="$why after $a: the program's exit $rc or output differ;"
        "$ST" merge "$tmp/tw/run" -o "$tmp/tw.out" --no-causal >/dev/null 2>"$tmp/merge.err"
        rc=$?
        if [ $rc = 0 ]; then
            [ -s "$tmp/tw.out/traces.otf2" ] || why="$why after $a: merged without an archive;"
            [ $a != 1000000 ] || [ ! -s "$tmp/merge.err" ] || why="$why nothing failed, yet: $(head -1 "$tmp/merge.err");"
        else
            [ "$(wc -l <"$tmp/merge.err")" = 1 ] && [ ! -e "$tmp/tw.out" ] || why="$why after $a: merge exit $rc, $(head -2 "$tmp/merge.err" | tr '\n' '|');"
        fi
    done
else
    why=" examples/stencil did not run untraced"
fi
[ -z "$why" ]
ok $? "the tracer's writes failing (ENOSPC) from the N-th on in each rank: the program's output and exit status as untraced; the merge takes what was written or refuses it in one line${why:+:$why}"

# `synctrace causal OUT` with the reads or the writes in OUT failing
# (its archive's definitions, the build's files set aside beside it, the
# index): one line, no causal.idx, nothing else left in OUT, its report
# as it was.
why=""
if [ $built = 1 ] && "$ST" merge "$tmp/raw" -o "$tmp/co" --no-causal >/dev/null 2>&1; then
    state() { (ls -A "$tmp/co"; cksum "$tmp/co/report.json" "$tmp/co/report.txt") | tr '\n' ' '; }
    for w in 0 1; do
        rm -f "$tmp/ccount"
        timeout 60 env PREAD_FAILS_DIR="$tmp/co" PREAD_FAILS_WRITES=$w PREAD_FAILS_COUNT="$tmp/ccount" \
            LD_PRELOAD="$tmp/pf.so" "$ST" causal "$tmp/co" >/dev/null 2>&1
        rm -f "$tmp/co/causal.idx" "$tmp/co/cluster_sizes".*
        before=$(state)   # (the counting run's report)
        n=$(cat "$tmp/ccount" 2>/dev/null || echo 0)
        [ "$n" -gt 10 ] || why="$why $n calls counted;"
        for a in $( [ "$n" -gt 10 ] && echo 0 1 $((n / 4)) $((n / 2)) $((3 * n / 4)) $((n - 2)) $((n - 1)) ); do
            timeout 60 env PREAD_FAILS_DIR="$tmp/co" PREAD_FAILS_WRITES=$w PREAD_FAILS_AFTER="$a" \
                LD_PRELOAD="$tmp/pf.so" "$ST" causal "$tmp/co" >/dev/null 2>"$tmp/err"
            rc=$?
            [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ "$(state)" = "$before" ] \
                || why="$why writes=$w after $a: exit $rc, $(head -2 "$tmp/err" | tr '\n' '|') left: $(ls -A "$tmp/co" | tr '\n' ' ');"
            rm -f "$tmp/co/causal.idx" "$tmp/co/cluster_sizes".*
        done
    done
else
    why=" no merged archive to index"
fi
[ -z "$why" ]
ok $? "synctrace causal with the reads, or the writes, in OUT failing from the N-th on (7 values each): one line, no index, OUT as it was${why:+:$why}"
finish
