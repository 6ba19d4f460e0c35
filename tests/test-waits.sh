#!/bin/bash
# synctrace waits: wait states injected with known lengths
# (tests/mpi/mpi_waits.c, one pattern a run, MPI_Win_fence and post/start/complete/wait
# included -- MPI_Win_test must give no Early Wait, a zero-operation epoch all
# of its Early Wait as Late Complete --, MPI_Iallreduce and MPI_Ibcast
# completed in MPI_Wait, MPI_Neighbor_allgather on a Cartesian ring (only
# the late rank's in-neighbours wait), 4 ranks, clocks skewed by up
# to 30 ms) come out within their bounds of the injected value (the
# sleeps as the program measured them, untraced: a loaded machine wakes a
# sleeper late; 5 % + 3 ms for the rest of the untraced timing); the
# true total (true_time) lies inside every pattern's [lo, hi]; the tool's
# figures equal a brute-force reference's over otf2-print
# (tests/checkers/waits_ref.py); the same pattern on the raw, unsynchronised
# clocks is wrong by more than that tolerance. Bad input gets a one-line
# error and a non-zero exit; waits.json appears only whole.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
: "${OTF2_PRINT:=otf2-print}"
phases="late_sender:late_sender wrong_order:late_sender_wrong_order late_receiver:late_receiver
late_broadcast:late_broadcast late_scatter:late_scatter early_gather:early_gather late_barrier:wait_barrier wait_nxn:wait_nxn early_reduce:early_reduce
early_scan:early_scan late_fence:wait_fence late_post:late_post early_wait:early_wait
late_complete:late_complete zero_op:late_complete win_test:early_wait iallreduce:wait_nxn ibcast:late_broadcast
neighbor:wait_nxn late_issend:late_receiver rendezvous:late_receiver p2p_edges:late_sender"
# (the neighbor phase has one check more: neighbours.txt against the raw trace;
# late_issend, rendezvous and p2p_edges one each of their own)
plan $((22 * 33 + 1 + 3 + 6 + 4))
tmp=$(scratch)
prog=$(build_mpi mpi_waits "$tmp")
np=4 delay_ms=10 reps=3
export SYNCTRACE_SKEW=seed=5,offset_us=30000,drift_ppm=50
for entry in $phases; do
    phase=${entry%%:*} pattern=${entry#*:}
    raw=$tmp/$phase.raw out=$tmp/$phase.out
    if [ -z "$prog" ]; then
        for i in $(seq 33); do skip "$phase: mpicc failed"; done
        case $phase in late_issend | rendezvous | p2p_edges) skip "$phase: mpicc failed" ;; esac
        continue
    fi
    run_traced "$raw" $np "$prog" "$phase" $delay_ms $reps >"$tmp/$phase.run" 2>&1
    rc=$?
    # a failure says what the run said (one in a clean-clone run, not reproduced in 28 more)
    ok $rc "$phase: traced run succeeds$([ $rc -eq 0 ] || echo " (exit $rc: $(tail -c 400 "$tmp/$phase.run" | tr '\n' ' '))")"
    # the expected total from the sleeps as they took (mpi_waits.c's header):
    # whose sleep is waited for, by how many ranks
    slept() { awk -v r="$1" '$1 == "slept" && $2 == r { print $3 / 1000 }' "$tmp/$phase.run"; }
    case $phase in
    late_sender | early_wait | late_complete | zero_op) injected=$(slept $((np - 1))) ;;
    win_test) injected=none ;;   # MPI_Win_test does not block
    wrong_order) injected=$(slept 1) ;;
    early_reduce | early_gather)   # until the first other member: the shortest of their sleeps
        injected=$(awk '$1 == "slept" && $2 > 0 { m = (m == "" || $3 < m) ? $3 : m } END { print m / 1000 }' "$tmp/$phase.run") ;;
    neighbor)   # rank 0's two in-neighbours of the ring wait for it, the third rank does not
        injected=$(awk -v s="$(slept 0)" 'BEGIN { print s * 2 }') ;;
    p2p_edges) injected=$(slept $((np - 1))) ;;
    late_receiver | late_issend | rendezvous | late_broadcast | late_scatter | ibcast | early_scan | late_post) injected=$(awk -v s="$(slept 0)" -v n=$np 'BEGIN { print s * (n - 1) }') ;;
    *) injected=$(awk -v s="$(slept $((np - 1)))" -v n=$np 'BEGIN { print s * (n - 1) }') ;;
    esac
    tol=$(awk -v i="${injected:-0}" 'BEGIN { printf "%.6f", 0.05 * i + 0.003 }')
    diag "$phase: injected $injected s (the sleeps as measured), tolerance $tol s"
    "$SYNCTRACE_BIN" merge "$raw" -o "$out" >"$tmp/$phase.merge" 2>&1
    ok $? "$phase: merge succeeds"
    "$SYNCTRACE_BIN" waits "$out" --json >"$tmp/$phase.waits" 2>&1
    ok $? "$phase: synctrace waits --json succeeds"
    sed 's/^/# /' "$tmp/$phase.waits" | head -6
    "$PYTHON3" "$top_srcdir/tests/checkers/waits_ref.py" "$OTF2_PRINT" "$SYNCTRACE_BIN" "$out" "$raw" \
        "$pattern=$injected" "$tol" >"$tmp/$phase.check" 2>&1
    n=$(grep -c '^\(not \)\?ok - ' "$tmp/$phase.check")
    tap_from_checker "$phase: " "$tmp/$phase.check"
    for i in $(seq $((n + 1)) 30); do ok 1 "$phase: the checker stopped early ($(tail -1 "$tmp/$phase.check"))"; done
    # one Late Receiver per completing call (the Waitall of two MPI_Issend), none for an eager
    # send that left before its receive was posted: N-1 a repetition
    case $phase in late_issend | rendezvous)
        # on the merged times exactly those; as possible too, unless the clocks are known less
        # well than the receiver's sleep (a loaded machine's: an eager send's exit may then be
        # after the posting, for all the bounds say; waits_ref.py's widest_pair_ns)
        c=$("$PYTHON3" - "$out" "$(((np - 1) * reps))" "$delay_ms" "$top_srcdir/tests/checkers" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from waits_ref import widest_pair_ns
out, want, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) * 1e-3
t = [t for t in json.load(open(out + '/waits.json'))['totals'] if t['pattern'] == 'late_receiver'][0]
widest = widest_pair_ns(out) * 1e-9
loose = widest >= delay
ok = t['count'] == want and (t['count_possible'] == want or loose)
print('%s count %d, possible %d%s' % ('ok' if ok else 'not', t['count'], t['count_possible'],
      ' (two clocks known within %.6f s, the sleep %.3f s)' % (widest, delay) if t['count_possible'] != want else ''))
PY
)
        [ "${c%% *}" = ok ]
        ok $? "$phase: $(((np - 1) * reps)) Late Receiver instances (one a completing call, eager sends none): ${c#* }" ;;
    p2p_edges)   # MPI_PROC_NULL leaves no message; self and intercommunicator messages all matched, a rank never waits for itself
        "$PYTHON3" - "$out/waits.json" >"$tmp/$phase.edges" 2>&1 <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
assert w['messages_unmatched'] == 0, 'unmatched: %d' % w['messages_unmatched']
assert w['collectives_incomplete'] == 0, 'incomplete collectives: %d' % w['collectives_incomplete']
assert not [r for r in w['waits'] if r['communicator'] == 'MPI_COMM_SELF'], 'a wait on MPI_COMM_SELF'
print('0 unmatched, no collective incomplete (MPI_COMM_SELF ones each alone), no wait on MPI_COMM_SELF')
PY
        ok $? "$phase: $(tail -1 "$tmp/$phase.edges")" ;;
    esac
done

# The neighbour phase's distributed-graph ring: the merge writes its
# in-neighbours to OUT/neighbours.txt (the checker compared them with the
# raw trace's); without the file its instances (one a repetition) are left
# out and counted.
if [ -f "$tmp/neighbor.out/waits.json" ]; then
    unknown() { "$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))['collectives_unknown_neighbours'])" "$1" 2>&1; }
    known=$(unknown "$tmp/neighbor.out/waits.json")
    cp -r "$tmp/neighbor.out" "$tmp/nonbrs.out" && rm -f "$tmp/nonbrs.out/neighbours.txt" "$tmp/nonbrs.out/waits.json"
    "$SYNCTRACE_BIN" waits "$tmp/nonbrs.out" --json >/dev/null 2>&1
    left=$(unknown "$tmp/nonbrs.out/waits.json")
    [ "$known" = 0 ] && [ "$left" = "$reps" ]
    ok $? "neighbor: the graph ring's instances all known from neighbours.txt ($known unknown), without it $reps left out and counted ($left)"
    printf '# synctrace neighbours 1\n4 0 x\n' >"$tmp/nonbrs.out/neighbours.txt"
    "$SYNCTRACE_BIN" waits "$tmp/nonbrs.out" >"$tmp/e6" 2>&1
    rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e6")" -eq 1 ] && grep -q "neighbours.txt:2" "$tmp/e6"
    ok $? "a bad neighbours.txt: one line naming it and the line, exit $rc ($(cat "$tmp/e6"))"
else
    skip "neighbor: no waits.json"
    skip "neighbor: no waits.json"
fi

# The bundled example (a stencil with Isend/Irecv/Waitall and Allreduce,
# real waits of a few us): plausible figures, every row 0 <= lo <= seconds
# <= hi and count_sure <= count <= count_possible, the true total inside.
stencil=$top_builddir/examples/stencil
if [ -x "$stencil" ]; then
    run_traced "$tmp/ex.raw" 4 "$stencil" -i 50 >"$tmp/ex.run" 2>&1 &&
        "$SYNCTRACE_BIN" merge "$tmp/ex.raw" -o "$tmp/ex.out" >/dev/null 2>&1 &&
        "$SYNCTRACE_BIN" waits "$tmp/ex.out" --json >"$tmp/ex.waits" 2>&1
    ok $? "the bundled example: traced, merged, waits computed"
    "$PYTHON3" - "$tmp/ex.out/waits.json" >"$tmp/ex.check" 2>&1 <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
eps = 1e-12
# true times are whole ns per event: a wait's two ends are each off by < 1 ns
teps = lambda r: 2e-9 * max(1, r["count_possible"], r["count"])
bad = [r for r in w["waits"] + w["totals"]
       if not (0 <= r["lo"] <= r["seconds"] + eps and (r["hi"] is None or r["seconds"] <= r["hi"] + eps)
               and r["count_sure"] <= r["count"] <= r["count_possible"]
               and (r.get("true_seconds") is None
                    or r["lo"] - teps(r) <= r["true_seconds"] <= (r["hi"] or 1e300) + teps(r)))]
assert w["waits"], "no wait found at all"
assert not bad, bad[:2]
print("%d rows" % len(w["waits"]))
PY
    ok $? "the bundled example: every row plausible ($(tail -1 "$tmp/ex.check"))"
else
    skip "no examples/stencil"
    skip "no examples/stencil"
fi

# Bad input: one line naming the file, exit status non-zero, no waits.json.
out=$tmp/late_sender.out
"$SYNCTRACE_BIN" waits "$tmp/nothing-here" >"$tmp/e1" 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] && grep -q "nothing-here" "$tmp/e1"
ok $? "a missing archive: one line naming it, exit $rc ($(cat "$tmp/e1"))"
if [ -d "$out" ]; then
    bad=$tmp/bad.out
    cp -r "$out" "$bad"
    rm -f "$bad/waits.json"
    echo '{"domains": [ {"domain": 0, ' >"$bad/report.json"
    "$SYNCTRACE_BIN" waits "$bad" --json >"$tmp/e2" 2>&1
    rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e2")" -eq 1 ] && grep -q "report.json" "$tmp/e2"
    ok $? "a cut report.json: one line naming it, exit $rc ($(cat "$tmp/e2"))"
    [ ! -e "$bad/waits.json" ] && ! ls "$bad"/waits.json.tmp-* >/dev/null 2>&1
    ok $? "no waits.json, not even a temporary one, after the error"
    # without report.json every figure is unbounded: 'possibly none' everywhere
    rm -f "$bad/report.json"
    "$SYNCTRACE_BIN" waits "$bad" --json >"$tmp/e3" 2>&1 &&
        "$PYTHON3" -c "import json,sys; w=json.load(open(sys.argv[1])); sys.exit(0 if all(x['possibly_none'] and x['hi'] is None for x in w['waits']) and w['waits'] else 1)" "$bad/waits.json"
    ok $? "without report.json: every wait unbounded, possibly none"
    chmod a-w "$bad"
    if [ ! -w "$bad" ]; then
        rm -f "$bad/waits.json" 2>/dev/null
        "$SYNCTRACE_BIN" waits "$bad" --json >"$tmp/e4" 2>&1
        rc=$?
        [ $rc -ne 0 ] && grep -q "waits.json" "$tmp/e4"
        ok $? "an unwritable OUT: an error naming waits.json, exit $rc"
    else
        skip "running as root: the directory stays writable"
    fi
    chmod u+w "$bad"
    "$SYNCTRACE_BIN" waits "$out" --top x >"$tmp/e5" 2>&1
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/e5")" -eq 1 ]
    ok $? "a bad --top: one line, exit 2"
else
    for i in 1 2 3 4 5; do skip "no archive from the first phase"; done
fi
finish
