#!/bin/bash
# `mpirun -np K synctrace merge RAW -o OUT` (issue 12 §2): until the
# MPI-parallel merge is built, the first process merges alone and the
# others end at once, so the command writes what one merge writes, file
# for file, prints one summary, and says once on stderr how it ran; K
# merges racing for OUT would each do all the work and replace each
# other's output. An OUT that exists is refused (exit non-zero, left as
# it is), and so is one that appears while the merge runs.
. "$top_srcdir/tests/lib.sh"
plan 7
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)

"$GEN" "$tmp/raw" --ranks 8 --pattern stencil2d --iterations 200 --ranks-per-node 2 >/dev/null &&
    "$ST" merge "$tmp/raw" -o "$tmp/one" >/dev/null 2>"$tmp/one.err"
ok $? "a trace of 8 ranks generated and merged by one process $(head -1 "$tmp/one.err")"

run_plain 3 "$ST" merge "$tmp/raw" -o "$tmp/three" >"$tmp/three.out" 2>"$tmp/three.err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^synctrace merge: 8 ranks' "$tmp/three.out")" = 1 ]
ok $? "mpirun -np 3: exit $rc, one summary on stdout ($(grep -c '^synctrace merge:' "$tmp/three.out") printed)"
[ "$(grep -c 'started as 3 processes' "$tmp/three.err")" = 1 ] && [ "$(wc -l <"$tmp/three.err")" = 1 ]
ok $? "mpirun -np 3: one line on stderr says how it ran: $(head -1 "$tmp/three.err")"
diff=$(merged_differences "$tmp/one" "$tmp/three" | tr '\n' ' ')
[ -z "$diff" ] && [ -s "$tmp/three/causal.idx" ]
ok $? "mpirun -np 3 wrote what one process writes, file for file${diff:+ (differ: $diff)}"

# OUT exists: refused by the process that merges, the job fails, OUT stays.
before=$(find "$tmp/three" -type f -printf '%P %s %T@\n' | sort | md5sum)
run_plain 2 "$ST" merge "$tmp/raw" -o "$tmp/three" >/dev/null 2>"$tmp/again.err"
rc=$?
after=$(find "$tmp/three" -type f -printf '%P %s %T@\n' | sort | md5sum)
[ $rc != 0 ] && [ "$before" = "$after" ] && grep -q "$tmp/three exists" "$tmp/again.err"
ok $? "mpirun -np 2 onto an existing OUT: exit $rc, OUT untouched: $(grep 'exists' "$tmp/again.err" | head -1)"

# OUT appearing while the merge runs (made once the merge has begun
# writing into its temporary directory) is not replaced without --force.
"$GEN" "$tmp/big" --ranks 64 --iterations 1500 --no-true-time >/dev/null
"$ST" merge "$tmp/big" -o "$tmp/late" --jobs 1 >/dev/null 2>"$tmp/late.err" &
pid=$!
for _ in $(seq 600); do
    compgen -G "$tmp/late.tmp-*" >/dev/null && break
    sleep 0.05
done
mkdir "$tmp/late" && echo mine >"$tmp/late/file"
wait $pid
rc=$?
[ $rc != 0 ] && [ "$(ls -A "$tmp/late")" = file ] && grep -q "appeared while the merge ran" "$tmp/late.err"
ok $? "an OUT made while the merge ran: exit $rc, left as it was: $(head -1 "$tmp/late.err")"
left=$(compgen -G "$tmp/late.tmp-*" | wc -l)
[ "$left" = 0 ]
ok $? "no temporary output left behind ($left)"
