#!/bin/bash
# Communicators told apart by the key their members agree on, never by name
# (tests/mpi/mpi_commkeys.c): MPI_COMM_SELF and size-1 communicators are
# rank-local; MPI_Comm_create_group and MPI_Comm_idup agree on their keys
# whatever their order on each rank; intercommunicator peers resolve to the
# right world ranks (dump, and the merged archive read by OTF2's Python
# reader); a receive released with MPI_Request_free still matches its send;
# MPI_Comm_dup/MPI_Comm_free pairs cost the same late in a run as early.
. "$top_srcdir/tests/lib.sh"
plan 43
tmp=$(scratch)
prog=$(build_mpi mpi_commkeys "$tmp") || prog=""
pyotf2=""
for p in "${PYTHON3:-python3}" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
skew=seed=11,offset_us=3000,drift_ppm=30

# run MODE NP: untraced and traced (skewed clocks) runs, dump, merge; the
# merge must leave no tachyon, nothing unmatched, every true offset inside
# its bounds and an error against the truth under 5 ms (the skew is 3 ms; a rank-local collective paired across ranks errs by the 0.2-0.6 s between them).
run() {
    local mode=$1 np=$2 f=$tmp/$1
    run_plain "$np" "$prog" "$mode" >"$f.plain" 2>/dev/null
    SYNCTRACE_SKEW=$skew run_traced "$f.raw" "$np" "$prog" "$mode" >"$f.out" 2>"$f.err"
    ok $? "$mode: traced run succeeds"
    cmp -s "$f.plain" "$f.out" && [ -s "$f.out" ]
    ok $? "$mode: output identical with and without the tracer"
    "$SYNCTRACE_BIN" dump "$f.raw" >"$f.dump" 2>&1
    ok $? "$mode: synctrace dump reads the trace"
    "$SYNCTRACE_BIN" merge "$f.raw" -o "$f.merged" >"$f.merge.out" 2>&1
    ok $? "$mode: merge succeeds"
    "${PYTHON3:-python3}" - "$f.merged/report.json" "$np" >"$f.report" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["truth"]
print("# tachyons_after %d unmatched %d/%d incomplete %d error_max_ns %.0f inside %d of %s delta_ns %s"
      " violated_by_truth %d messages %d collectives" % (
    r["tachyons_after"], r["unmatched_sends"], r["unmatched_receives"], r["incomplete_collectives"],
    t["error_max_ns"], t["domains_inside_bounds"], sys.argv[2], r["delta_ns"], t["messages_violated_by_truth"],
    t["collectives_violated_by_truth"]))
bad = (r["tachyons_after"] or r["unmatched_sends"] or r["unmatched_receives"] or r["incomplete_collectives"]
       or t["error_max_ns"] > 5000000 or t["domains_inside_bounds"] != int(sys.argv[2]))
sys.exit(1 if bad else 0)
PY
    local rc=$?
    cat "$f.report"
    ok $rc "$mode: merged with 0 tachyons, 0 unmatched, 0 incomplete collectives, true offsets inside bounds, error < 5 ms"
    if [ -n "$pyotf2" ]; then
        "$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" --peers "$f.merged/traces.otf2" >"$f.peers" 2>&1
        tail -1 "$f.peers" | sed 's/^/# /'
        tail -1 "$f.peers" | grep -q "tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0$"
        ok $? "$mode: the merged archive read by OTF2's Python reader: no tachyon, nothing unmatched"
    else
        skip "$mode: python3-otf2 not installed"
    fi
}

if [ -z "$prog" ]; then
    for i in $(seq 43); do skip "mpi_commkeys does not build"; done
    finish
fi

# --- MPI_COMM_SELF and a size-1 split on every rank at its own time (0.2 s apart)
run self 4
n=$(grep -c "^# rank [0-9] comm MPI_COMM_SELF members=" "$tmp/self.dump")
bad=$(awk '/^# rank [0-9]+ comm MPI_COMM_SELF members=/ { split($0, a, "members="); if (a[2] != $3) n++ } END { print n + 0 }' "$tmp/self.dump")
ok $([ "$n" -eq 4 ] && [ "$bad" -eq 0 ]; echo $?) "self: each rank's MPI_COMM_SELF is that rank ($n ranks, $bad wrong)"
# the size-1 split has a key of each rank's own
ones=$(grep -E "^# rank [0-9]+ comm comm [0-9a-f]{16} members=[0-9]+$" "$tmp/self.dump" | awk '{print $5 " " $6}')
shared=$(echo "$ones" | sort | uniq -d | wc -l)
ok $([ "$(echo "$ones" | grep -c .)" -eq 4 ] && [ "$shared" -eq 0 ]; echo $?) "self: each rank's size-1 split has a key of its own ($shared shared)"
"${PYTHON3:-python3}" -c "
import json, sys
r = json.load(open('$tmp/self.merged/report.json'))
# per rank: barrier + allreduce on SELF, barrier + bcast on the split and
# the split's free (DESTROY_HANDLE): 5 instances each; on the world: barrier,
# reduce, the split (CREATE_HANDLE), MPI_Init's CREATE_HANDLE, MPI_Finalize's
# DESTROY_HANDLE
sys.exit(0 if r['collectives'] == 4 * 5 + 5 else 1)"
ok $? "self: every rank-local collective is an instance of its own (25 instances)"
if [ -n "$pyotf2" ]; then
    grep "^peer .* MPI_COMM_SELF " "$tmp/self.peers" >"$tmp/self.selfpeers"
    awk '$2 != $6 { n++ } END { exit !(NR == 8 && n == 0) }' "$tmp/self.selfpeers"
    ok $? "self: in the merged archive every rank's self-messages point at that rank ($(wc -l <"$tmp/self.selfpeers") events)"
    "$pyotf2" - "$tmp/self.merged/traces.otf2" <<'PY'
import sys, otf2
with otf2.reader.open(sys.argv[1]) as t:
    selfs = [c for c in t.definitions.comms if not isinstance(c, otf2.definitions.InterComm)
             and c.group.group_type == otf2.GroupType.COMM_SELF]
    sys.exit(0 if len(selfs) == 1 and selfs[0].name == "MPI_COMM_SELF" and not selfs[0].group.members else 1)
PY
    ok $? "self: the merged archive has one MPI_COMM_SELF, with OTF2's COMM_SELF group (as Score-P writes it)"
else
    skip "self: python3-otf2 not installed"
    skip "self: python3-otf2 not installed"
fi

# --- create_group before idup on even ranks, after on odd ranks
run order 4
for name in "made by create_group" "made by idup"; do
    k=$(grep "^# rank [0-9]* comm_info .* name=$name key=" "$tmp/order.dump" | sed 's/.* key=\([0-9a-f]*\).*/\1/' | sort -u)
    n=$(grep -c "^# rank [0-9]* comm_info .* name=$name key=" "$tmp/order.dump")
    ok $([ "$n" -eq 4 ] && [ "$(echo "$k" | wc -l)" -eq 1 ]; echo $?) "order: every rank has one key for the communicator $name ($n ranks: $(echo $k))"
    eval "key_${name##* }=\$k"
done
ok $([ -n "$key_create_group" ] && [ "$key_create_group" != "$key_idup" ]; echo $?) "order: the two communicators have different keys"

# --- intercommunicator: point-to-point across, a barrier, an allreduce
run inter 4
# the program says whom each rank received from; the trace must say the same
want=$(sed -n 's/^inter: rank \([0-9]*\) received from world rank \([0-9]*\)$/\1 \2/p' "$tmp/inter.out" | sort)
# the world rank a dump line's peer= names
peer_of='function peer(  i) { for (i = 4; i <= NF; i++) if ($i ~ /^peer=/) return substr($i, 6); return "?" }'
got=$(awk "$peer_of"' $3 == "RECV" && (/ tag=3 / || / tag=4 /) { print $1, peer() }' "$tmp/inter.dump" | sort)
ok $([ -n "$want" ] && [ "$want" = "$got" ]; echo $?) "inter: synctrace dump resolves each receive's sender to the world rank the program saw"
sends=$(awk "$peer_of"' ($3 == "SEND" || $3 == "ISEND") && (/ tag=3 / || / tag=4 /) { print $1, peer() }' "$tmp/inter.dump" | sort)
ok $([ "$sends" = "$(echo "$want" | awk '{print $2, $1}' | sort)" ]; echo $?) "inter: and each send's receiver"
if [ -n "$pyotf2" ]; then
    mgot=$(awk '$1 == "peer" && $3 == "MpiRecv" && ($5 == 3 || $5 == 4) { print $2, $6 }' "$tmp/inter.peers" | sort)
    ok $([ "$want" = "$mgot" ]; echo $?) "inter: the merged archive (InterComm, read by OTF2's Python reader) resolves every sender to its world rank"
    msend=$(awk '$1 == "peer" && ($3 == "MpiSend" || $3 == "MpiIsend") && ($5 == 3 || $5 == 4) { print $2, $6 }' "$tmp/inter.peers" | sort)
    ok $([ "$sends" = "$msend" ]; echo $?) "inter: and every receiver"
else
    skip "inter: python3-otf2 not installed"
    skip "inter: python3-otf2 not installed"
fi
if command -v otf2-print >/dev/null; then
    otf2-print -G "$tmp/inter.merged/traces.otf2" >"$tmp/inter.defs" 2>"$tmp/inter.defs.err"
    grep -q "^INTER_COMM .*Group A: .*Group B: " "$tmp/inter.defs" && [ ! -s "$tmp/inter.defs.err" ]
    ok $? "inter: otf2-print reads the merged archive cleanly, with an INTER_COMM of two groups"
else
    skip "inter: otf2-print not installed"
fi
# barrier and allreduce: one instance each across both groups
"${PYTHON3:-python3}" -c "
import json, sys
r = json.load(open('$tmp/inter.merged/report.json'))
# + the communicator handles: MPI_Init, MPI_Finalize, the split (world),
# MPI_Intercomm_create and the intercommunicator's free (across both
# groups), each half's free
sys.exit(0 if r['incomplete_collectives'] == 0 and r['collectives'] == 3 + 7 else 1)"
ok $? "inter: the intercommunicator's barrier and allreduce are instances across both groups"

# --- MPI_Request_free on an active receive
run reqfree 2
grep -q "^0 [0-9]* IRECV_FREED .* peer=1 lpeer=1 comm=MPI_COMM_WORLD tag=9 req=" "$tmp/reqfree.dump"
ok $? "reqfree: the tracer records what the freed receive was posted for"
"${PYTHON3:-python3}" -c "
import json, sys
r = json.load(open('$tmp/reqfree.merged/report.json'))
sys.exit(0 if r['freed_receives'] == 1 else 1)"
ok $? "reqfree: the merge pairs the send with the freed receive (report: freed_receives 1)"

# --- MPI_Comm_dup/MPI_Comm_free: the second half of the pairs costs what the
# first did. One rank: no other process's scheduling in the times (before
# the strings were hashed, 20000 pairs took 0.33 s then 0.81 s here).
n=50000
run_plain 1 "$prog" dups $n >/dev/null 2>"$tmp/dups.plain.err"
run_traced "$tmp/dups.raw" 1 "$prog" dups $n >/dev/null 2>"$tmp/dups.err"
ok $? "dups: $n MPI_Comm_dup/MPI_Comm_free pairs traced"
read -r _ plain _ _ < <(grep dups_seconds "$tmp/dups.plain.err")
read -r _ traced first second < <(grep dups_seconds "$tmp/dups.err")
diag "untraced ${plain:-?} s, traced ${traced:-?} s (first half ${first:-?} s, second half ${second:-?} s)"
awk -v p="${plain:-0}" -v t="${traced:-0}" -v a="${first:-0}" -v b="${second:-0}" \
    'BEGIN { exit !(p > 0 && t > 0 && a > 0 && b < 1.8 * a && t < 4 * p + 0.5) }'
ok $? "dups: traced cost does not grow with the run (second half < 1.8 x first, traced < 4 x untraced + 0.5 s)"
"$SYNCTRACE_BIN" merge "$tmp/dups.raw" -o "$tmp/dups.merged" >/dev/null 2>&1
ok $? "dups: the trace of $n communicators merges"
finish
