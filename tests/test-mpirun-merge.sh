#!/bin/bash
# `mpirun -np K synctrace merge RAW -o OUT` (issue 12 §2): K processes
# merge together (tools/parallel/pmerge.h) and write what one process writes,
# file for file (archive, report, index, raw view), on every kind of trace
# whose parts travel between them: true times, repairs (streamed and in
# memory), events set aside, threads' locations, one-sided operations,
# sparse collective members, a killed rank rebuilt from its journal, more
# processes than rank archives. One summary on stdout, no word more on
# stderr than one process says; a damaged archive in a worker's share is
# the same one-line error, with no output; an OUT that exists (or appears
# while the merge runs) is never replaced. Other commands run once.
. "$top_srcdir/tests/lib.sh"
plan 24
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)

# same_as_one RAW OUT NP LABEL [OPTIONS]: RAW merged by one process into
# OUT.one (once) and by NP into OUT.npNP; 1 check
same_as_one() {
    local raw=$1 out=$2 np=$3 label=$4 diff rc1 rcn
    shift 4
    [ -d "$out.one" ] || { "$ST" merge "$raw" -o "$out.one" "$@" >"$out.one.out" 2>"$out.one.err"; echo $? >"$out.one.rc"; }
    rc1=$(cat "$out.one.rc")
    rm -rf "$out.np$np"
    run_plain "$np" "$ST" merge "$raw" -o "$out.np$np" "$@" >"$out.np$np.out" 2>"$out.np$np.err"
    rcn=$?
    diff=$(merged_differences "$out.one" "$out.np$np" | tr '\n' ' ')
    [ "$rc1" = 0 ] && [ $rcn = 0 ] && [ -z "$diff" ] && [ -s "$out.np$np/traces.otf2" ] \
        && cmp -s <(sed 's/([0-9.]* s)//; /^  time /d' "$out.one.out") <(sed 's/([0-9.]* s)//; /^  time /d' "$out.np$np.out") \
        && cmp -s "$out.one.err" "$out.np$np.err"
    ok $? "$label: mpirun -np $np (exit $rcn) wrote what one process writes, file for file, and said the same${diff:+ (differ: $diff)}$(head -c 300 "$out.np$np.err" | tr '\n' ' ')"
}

"$GEN" "$tmp/st" --ranks 8 --pattern stencil2d --iterations 200 --ranks-per-node 2 >/dev/null
same_as_one "$tmp/st" "$tmp/st" 2 "8-rank stencil with true times"
same_as_one "$tmp/st" "$tmp/st" 3 "8-rank stencil with true times"
[ "$(grep -c '^synctrace merge: 8 ranks' "$tmp/st.np3.out")" = 1 ] && [ ! -s "$tmp/st.np3.err" ]
ok $? "mpirun -np 3: one summary on stdout ($(grep -c '^synctrace merge:' "$tmp/st.np3.out") printed), nothing on stderr"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['truth']['error_max_ns'] > 0 and d['tachyons_after'] == 0 else 1)" \
    "$tmp/st.np3/report.json" 2>/dev/null
ok $? "mpirun -np 3: the report compares with the true times every worker sent"

"$GEN" "$tmp/few" --ranks 3 --pattern tree --iterations 50 >/dev/null
same_as_one "$tmp/few" "$tmp/few" 5 "3 ranks, 5 processes (two read nothing)"

"$GEN" "$tmp/a2a" --ranks 6 --pattern alltoall --iterations 40 --no-true-time >/dev/null
same_as_one "$tmp/a2a" "$tmp/a2a" 2 "all-to-alls without true times"

# delta > 0: the repair's times reach the workers through a file in OUT.tmp
"$GEN" "$tmp/rep" --ranks 6 --ranks-per-node 2 --pattern stencil2d --iterations 3000 --drift-slope 3000 \
    --compute-us 100 --latency-ns 100 >/dev/null
same_as_one "$tmp/rep" "$tmp/rep" 3 "a trace the merge must repair (streamed)" --drift-model line
moved=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['repair']['events_moved'])" "$tmp/rep.np3/report.json" 2>/dev/null)
[ "${moved:-0}" -gt 0 ] && [ -z "$(find "$tmp/rep.np3" -name '.synctrace-times-*')" ]
ok $? "the repair moved $moved events, and its times' files are not left in OUT"
SYNCTRACE_REPAIR=memory same_as_one "$tmp/rep" "$tmp/repmem" 2 "the same repaired in memory (SYNCTRACE_REPAIR=memory)" \
    --drift-model line

# every event set aside, every sort spilled, on every process
same_as_one "$tmp/st" "$tmp/spilled" 2 "events set aside and sorts spilled" --event-memory 0 --sort-memory 1 --no-causal
# --jobs 2: each process writes its part of the raw-view map beside its
# archive writer (write_stage.c), events set aside so that the writer
# loads them back while the map reads their times
same_as_one "$tmp/st" "$tmp/beside" 3 "the raw-view map beside the writer (--jobs 2), events set aside" --jobs 2 \
    --event-memory 0 --no-causal

# traced programs: threads' locations, one-sided operations, sparse members, a killed rank
skew=seed=9,offset_us=1000,drift_ppm=50
if prog=$(build_mpi mpi_threads "$tmp"); then
    SYNCTRACE_SKEW=$skew run_traced "$tmp/thr" 3 "$prog" 20 >/dev/null 2>&1
    same_as_one "$tmp/thr" "$tmp/thr" 2 "3 ranks of 4 threads calling MPI"
else
    ok 1 "build tests/mpi/mpi_threads.c"
fi
for c in rma intercomm_rooted; do
    if mpicc -std=c11 -D_GNU_SOURCE -O1 -o "$tmp/$c" "$top_srcdir/tests/conformance/$c.c" 2>/dev/null; then
        SYNCTRACE_SKEW=$skew run_traced "$tmp/$c.raw" 4 "$tmp/$c" >/dev/null 2>&1
        same_as_one "$tmp/$c.raw" "$tmp/$c.raw" 3 "tests/conformance/$c.c"
    else
        ok 1 "build tests/conformance/$c.c"
    fi
done
if prog=$(build_mpi mpi_neighbours "$tmp"); then
    SYNCTRACE_SKEW=$skew run_traced "$tmp/nb" 4 "$prog" 30 >/dev/null 2>&1
    same_as_one "$tmp/nb" "$tmp/nb" 2 "neighbourhood collectives (sparse members' sources)"
else
    ok 1 "build tests/mpi/mpi_neighbours.c"
fi
if prog=$(build_mpi mpi_kill9 "$tmp"); then
    SYNCTRACE_BUFFER_MB=1 run_traced "$tmp/k9" 4 "$prog" >/dev/null 2>&1
    same_as_one "$tmp/k9" "$tmp/k9" 3 "a rank killed by SIGKILL, rebuilt from its journal"
    [ "$(grep -c 'recovered\|killed' "$tmp/k9.np3/report.json")" -ge 1 ]
    ok $? "its report says what was recovered, as one process's does"
else
    ok 1 "build tests/mpi/mpi_kill9.c"; ok 1 "build tests/mpi/mpi_kill9.c"
fi

# a damaged rank archive in a worker's share: the one-line error, no output
cp -r "$tmp/st" "$tmp/bad"
rm -f "$tmp/bad/rank-000006.sum"
python3 -c "
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
for i in range(200, len(b), 97): b[i] ^= 0x5a
open(p, 'wb').write(b)" "$tmp/bad/rank-000006/6.evt"
"$ST" merge "$tmp/bad" -o "$tmp/bad.one" >/dev/null 2>"$tmp/bad.one.err"
rc1=$?
run_plain 3 "$ST" merge "$tmp/bad" -o "$tmp/bad.np3" >/dev/null 2>"$tmp/bad.np3.err"
rcn=$?
[ $rc1 = 1 ] && [ $rcn != 0 ] && [ "$(grep -c '^synctrace merge:' "$tmp/bad.np3.err")" = 1 ] \
    && [ "$(grep '^synctrace merge:' "$tmp/bad.np3.err")" = "$(cat "$tmp/bad.one.err")" ] \
    && [ ! -e "$tmp/bad.np3" ] && [ -z "$(compgen -G "$tmp/bad.np3.tmp-*")" ]
ok $? "a damaged archive read by a worker: exit $rcn, said once as one process says it ($(head -1 "$tmp/bad.one.err")), no output"

# options: said once
run_plain 3 "$ST" merge "$tmp/st" -o "$tmp/x" --no-such-option >/dev/null 2>"$tmp/opt.err"
rc=$?
[ $rc != 0 ] && [ "$(grep -c '^synctrace merge:' "$tmp/opt.err")" = 1 ] && [ ! -e "$tmp/x" ]
ok $? "a bad option: exit $rc, one line ($(grep '^synctrace merge:' "$tmp/opt.err"))"
run_plain 3 "$ST" merge --help >"$tmp/help.out" 2>"$tmp/help.err"
rc=$?
"$ST" merge --help >"$tmp/help1.out" 2>&1
[ $rc = 0 ] && cmp -s "$tmp/help.out" "$tmp/help1.out"
ok $? "--help: printed once, exit $rc"

# Another command under mpirun runs once, in the first process.
run_plain 3 "$ST" export "$tmp/st.np3" --format chrome -o "$tmp/st.json" >"$tmp/export.out" 2>"$tmp/export.err"
rc=$?
run_plain 3 "$ST" report "$tmp/st.np3" >"$tmp/report3.out" 2>&1
rc2=$?
"$ST" report "$tmp/st.np3" >"$tmp/report1.out" 2>&1
[ $rc = 0 ] && [ $rc2 = 0 ] && [ "$(grep -c '^synctrace export:' "$tmp/export.err")" = 1 ] && [ -s "$tmp/st.json" ] \
    && cmp -s "$tmp/report1.out" "$tmp/report3.out"
ok $? "export and report under mpirun -np 3: run once (exit $rc, $rc2; $(head -1 "$tmp/export.err"))"

# OUT exists: refused, the job fails, OUT stays.
before=$(find "$tmp/st.np3" -type f -printf '%P %s %T@\n' | sort | md5sum)
run_plain 2 "$ST" merge "$tmp/st" -o "$tmp/st.np3" >/dev/null 2>"$tmp/again.err"
rc=$?
after=$(find "$tmp/st.np3" -type f -printf '%P %s %T@\n' | sort | md5sum)
[ $rc != 0 ] && [ "$before" = "$after" ] && [ "$(grep -c "$tmp/st.np3 exists" "$tmp/again.err")" = 1 ]
ok $? "mpirun -np 2 onto an existing OUT: exit $rc, OUT untouched, said once: $(grep 'exists' "$tmp/again.err" | head -1)"

# OUT appearing while the merge runs (made once the merge has begun
# writing into its temporary directory) is not replaced without --force.
"$GEN" "$tmp/big" --ranks 64 --iterations 1500 --no-true-time >/dev/null
run_plain 2 "$ST" merge "$tmp/big" -o "$tmp/late" --jobs 1 >/dev/null 2>"$tmp/late.err" &
pid=$!
for _ in $(seq 600); do
    compgen -G "$tmp/late.tmp-*" >/dev/null && break
    sleep 0.05
done
mkdir "$tmp/late" && echo mine >"$tmp/late/file"
wait $pid
rc=$?
[ $rc != 0 ] && [ "$(ls -A "$tmp/late")" = file ] && grep -q "appeared while the merge ran" "$tmp/late.err"
ok $? "an OUT made while the merge ran: exit $rc, left as it was: $(grep synctrace "$tmp/late.err" | head -1)"
left=$(compgen -G "$tmp/late.tmp-*" | wc -l)
[ "$left" = 0 ]
ok $? "no temporary output left behind ($left)"
