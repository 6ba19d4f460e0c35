#!/bin/bash
# synctrace-gen: synthetic raw traces with known clocks. A 1000-rank trace
# and every pattern merge without tachyons or violations, with every true
# offset inside its bounds and nothing the truth contradicts; the true times
# obey the simulated causality (every message: true receive >= true send +
# minimum latency; collectives per their semantics), recorded time is the
# true time skewed as the archive says, the ClockOffsets are within their
# bounds; the output is deterministic; bad arguments get a one-line error
# and exit status 2.
. "$top_srcdir/tests/lib.sh"
plan 43
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }

# What report.json must say of a trace merged from generated input; prints
# the failed checks, or nothing.
report_failures() {
    "$PYTHON3" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get('truth', {})
bad = []
for k in ('tachyons_after', 'latency_violations_after', 'nonmonotonic_after',
          'collective_order_violations_after', 'unmatched_sends', 'unmatched_receives',
          'incomplete_collectives'):
    if d.get(k) != 0:
        bad.append('%s=%s' % (k, d.get(k)))
for k in ('messages_violated_by_truth', 'collectives_violated_by_truth'):
    if t.get(k) != 0:
        bad.append('truth.%s=%s' % (k, t.get(k)))
outside = [x['domain'] for x in d['domains'] if x.get('true_inside_bounds') is not True]
if outside:
    bad.append('true offset outside the bounds of domains %s' % outside[:10])
print(' '.join(bad))
PY
}

# Independent check of the true times against the simulated causality, from
# `synctrace dump`: messages paired as MPI pairs them (FIFO per communicator,
# sender, receiver and tag; receives in posting order), collectives the k-th
# call on each rank. Prints a summary; exit status 1 on any violation.
causality() {   # causality RAW_DIR MIN_LATENCY_NS
    "$SYNCTRACE_BIN" dump "$1" >"$tmp/dump.txt" || return 1
    "$PYTHON3" - "$tmp/dump.txt" "$2" <<'PY'
import re, sys
from collections import defaultdict
path, lmin = sys.argv[1], float(sys.argv[2])
res = {}
events = defaultdict(list)          # rank -> [(kind, time, truth, fields)]
head = re.compile(r'# rank (\d+) world_size \d+ .* resolution (\d+) ')
msg = re.compile(r' peer=(-?\d+) lpeer=\d+ comm=(.*?) tag=(\d+) bytes=\d+(?: req=(\d+))?$')
coll = re.compile(r' op=(\S+) comm=(.*?) root=(-?\d+) ')
for line in open(path):
    if line.startswith('#'):
        m = head.match(line)
        if m:
            res[int(m.group(1))] = int(m.group(2))
        continue
    f = line.split(' ', 5)
    rank, kind = int(f[0]), f[2]
    t = int(f[3][5:])
    truth = int(f[4][5:]) if f[4].startswith('true=') else None
    events[rank].append((kind, t, truth, line.rstrip('\n')))
problems = []
def ns(rank, ticks):
    return ticks * 1e9 / res[rank]
for r, ev in events.items():
    if any(e[2] is None for e in ev):
        problems.append('rank %d: an event without true_time' % r)
        continue
    for a, b in zip(ev, ev[1:]):
        if b[1] < a[1] or b[2] < a[2]:
            problems.append('rank %d: time goes back: %s' % (r, b[3]))
            break
sends, recvs = defaultdict(list), defaultdict(list)
calls = defaultdict(lambda: defaultdict(list))   # comm -> rank -> [(op, root, enter, exit)]
for r, ev in events.items():
    posted = {}
    begin = None
    for i, (kind, t, truth, line) in enumerate(ev):
        if kind == 'IRECV_REQUEST':
            posted[int(line.rsplit('req=', 1)[1])] = i
        elif kind in ('SEND', 'ISEND', 'RECV', 'IRECV'):
            m = msg.search(line)
            peer, comm, tag = int(m.group(1)), m.group(2), int(m.group(3))
            if kind in ('SEND', 'ISEND'):
                sends[(comm, r, peer, tag)].append((i, truth))
            else:
                order = posted.get(int(m.group(4)), i) if kind == 'IRECV' else i
                recvs[(comm, peer, r, tag)].append((order, truth))
        elif kind == 'COLL_BEGIN':
            begin = truth
        elif kind == 'COLL_END':
            m = coll.search(line)
            calls[m.group(2)][r].append((m.group(1), int(m.group(3)), begin, truth))
nmsg, slack = 0, float('inf')
for key in set(sends) | set(recvs):
    s, v = sends.get(key, []), sorted(recvs.get(key, []))
    if len(s) != len(v):
        problems.append('%s: %d sends, %d receives' % (key, len(s), len(v)))
    for (_, ts), (_, tr) in zip(s, v):
        nmsg += 1
        gap = ns(key[2], tr) - ns(key[1], ts)
        slack = min(slack, gap - lmin)
        if gap < lmin:
            problems.append('%s: received %.0f ns after it was sent' % (key, gap))
ncoll = 0
for comm, per_rank in calls.items():
    n = max(len(v) for v in per_rank.values())
    for k in range(n):
        inst = {r: v[k] for r, v in per_rank.items() if k < len(v)}
        ncoll += 1
        ops = {x[0] for x in inst.values()}
        op, root = inst[min(inst)][0], inst[min(inst)][1]
        if len(ops) != 1 or len(inst) != len(events):
            problems.append('%s #%d: ops %s on %d ranks' % (comm, k, ops, len(inst)))
            continue
        enter = {r: ns(r, x[2]) for r, x in inst.items()}
        exit_ = {r: ns(r, x[3]) for r, x in inst.items()}
        if len(inst) < 2:
            continue
        if op in ('barrier', 'alltoall', 'allreduce', 'allgather'):
            gap = min(exit_.values()) - max(enter.values())
        elif op == 'bcast':
            gap = min(exit_[r] for r in inst if r != root) - enter[root]
        elif op == 'reduce':
            gap = exit_[root] - max(enter[r] for r in inst if r != root)
        else:
            continue
        slack = min(slack, gap - lmin)
        if gap < lmin:
            problems.append('%s #%d (%s): completes %.0f ns after the entry it waits for' % (comm, k, op, gap))
print('%d messages, %d collectives, smallest slack over the minimum latency %.0f ns, %d problems%s'
      % (nmsg, ncoll, slack, len(problems), (': ' + '; '.join(problems[:3])) if problems else ''))
sys.exit(1 if problems or nmsg == 0 else 0)
PY
}

# ---------------------------------------------------------------- 1000 ranks
big="$tmp/big"
start=$(date +%s.%N)
"$GEN" "$big" --ranks 1000 --pattern stencil2d --ranks-per-node 1 --offset-us 1000 --drift-ppm 50 >"$tmp/gen.out" 2>"$tmp/gen.err"
ok $? "1000 ranks generated: $(cat "$tmp/gen.out" "$tmp/gen.err")"
n=$(ls "$big" | grep -c '^rank-[0-9]\{6\}\.otf2$')
ok $([ "$n" -eq 1000 ] && grep -q '^status complete$' "$big/run.meta" && grep -q '^sync.epochs 2$' "$big/run.meta" \
     && [ "$(grep -c '^sync\.epoch\.[01]\.peer\.[0-9]* parent=[0-9]* rtt_min_ns=' "$big/run.meta")" -eq 1998 ] \
     && grep -q '^sync.tree_steps 10$' "$big/run.meta"; echo $?) \
    "1000 rank archives; run.meta complete, with 2 epochs of 999 peers in a tree of 10 steps"
# The binomial tree: every domain's parent is it with its highest bit cleared,
# and a round lasts about 10 edges' time, not 999 (a star around rank 0).
ok $(awk '/^sync\.epoch\.0\.peer\./ { split($1, a, "."); d = a[5] + 0; split($2, b, "="); p = b[2] + 0;
            h = 1; while (h * 2 <= d) h *= 2; if (p != d - h) bad++ } END { exit bad > 0 }' "$big/run.meta" &&
     awk '/^generator\.sync_round\.0 / { split($2, a, "="); split($3, b, "="); split($4, c, "=");
            per_edge = c[2] / b[2]; exit !(a[2] < 20 * per_edge) }' "$big/run.meta"; echo $?) \
    "sync round over 1000 domains: binomial parents; lasts $(awk '/^generator\.sync_round\.0 / { split($2, a, "="); split($3, b, "="); split($4, c, "="); printf "%.1f", a[2] / (c[2] / b[2]) }' "$big/run.meta") edge exchanges, not 999"
printed=$(otf2-print "$big/rank-000000.otf2" 2>"$tmp/print.err" | grep -cE '^[A-Z_]+ ')
declared=$(otf2-print -G "$big/rank-000000.otf2" 2>/dev/null | sed -n 's/^LOCATION .*# Events: \([0-9]*\),.*/\1/p')
ok $([ "$printed" -gt 0 ] && [ "$printed" = "$declared" ] && [ ! -s "$tmp/print.err" ]; echo $?) \
    "otf2-print reads rank 0's $printed events, as many as its location declares ($declared)"
"$SYNCTRACE_BIN" merge "$big" -o "$big.out" >"$tmp/merge.out" 2>"$tmp/merge.err"
ok $? "1000 ranks merged: $(head -2 "$tmp/merge.out" | tr -s ' \n' ' ')$(cat "$tmp/merge.err")"
r="$big.out/report.json"
fail=$(report_failures "$r")
ok $([ -z "$fail" ]; echo $?) "1000 ranks: no tachyon, latency, order or monotony violation after the merge, all matched, truth inside every bound${fail:+ — FAILED: $fail}"
ok $([ "$(json "$r" "d['tachyons_raw'] > 0")" = True ]; echo $?) \
    "1000 ranks: the skew shows as $(json "$r" "d['tachyons_raw']") tachyons with the ClockOffsets interpolated"
diag "1000 ranks: accuracy $(json "$r" "'max %.0f ns, median %.0f ns; interpolated ClockOffsets max %.0f, median %.0f' % (d['truth']['error_max_ns'], d['truth']['error_median_ns'], d['truth']['interpolated_error_max_ns'], d['truth']['interpolated_error_median_ns'])"); merge $(json "$r" "d['seconds']['total']") s"

# ---------------------------------------------------------------- every pattern
for p in ring stencil2d stencil3d tree alltoall random; do
    d="$tmp/$p"
    "$GEN" "$d" --ranks 16 --ranks-per-node 4 --pattern "$p" --iterations 30 --seed 7 >"$d.gen" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$d" -o "$d.out" >"$d.merge" 2>&1
    rc=$?
    fail=$( [ $rc -eq 0 ] && report_failures "$d.out/report.json")
    ok $([ $rc -eq 0 ] && [ -z "$fail" ]; echo $?) \
        "$p, 16 ranks, 4 per node: generated and merged, every check of the report holds${fail:+ — FAILED: $fail}$( [ $rc -ne 0 ] && tail -1 "$d.gen" "$d.merge" 2>/dev/null | tr '\n' ' ')"
    out=$(causality "$d" 500)
    ok $? "$p: true times obey the simulated causality ($out)"
done

# Other paths: uneven nodes, more rounds, a TSC-like resolution, another latency.
d="$tmp/odd"
"$GEN" "$d" --ranks 10 --ranks-per-node 3 --pattern ring --iterations 40 --sync-rounds 5 \
    --latency-ns 1000:1500 --resolution 2500000000 --seed 3 >"$d.gen" 2>&1 \
    && "$SYNCTRACE_BIN" merge "$d" -o "$d.out" >"$d.merge" 2>&1
rc=$?
fail=$( [ $rc -eq 0 ] && report_failures "$d.out/report.json")
ok $([ $rc -eq 0 ] && [ -z "$fail" ]; echo $?) \
    "ring, 10 ranks, 3 per node, 5 sync rounds, 2.5 GHz ticks: merged, every check holds${fail:+ — FAILED: $fail}"
ok $([ "$(grep -c '^sync\.epoch\.' "$d/run.meta")" -eq 15 ] && grep -q '^sync.epochs 5$' "$d/run.meta" \
     && grep -q '^clock.domains 0 0 0 3 3 3 6 6 6 9$' "$d/run.meta"; echo $?) \
    "run.meta: 5 epochs of 3 peers, clock domains of 3 ranks"
out=$(causality "$d" 1000)
ok $? "uneven nodes: true times obey the simulated causality with a 1000 ns minimum ($out)"
"$SYNCTRACE_BIN" dump "$d" | grep -c "region=synctrace: clock synchronisation" >"$tmp/nsync"
ok $([ "$(cat "$tmp/nsync")" -eq $((5 * 2 * 4)) ]; echo $?) \
    "5 rounds: rank 0 and the 3 peers enter and leave the sync region in each ($(cat "$tmp/nsync") events)"

# Recorded time = true time skewed as the archive says; ClockOffsets within
# their bounds. (sync_check.py measures the drift between the first and last
# event to 1 tick: the run must last some milliseconds.)
"$GEN" "$tmp/long" --ranks 16 --ranks-per-node 4 --pattern stencil3d --iterations 20 --compute-us 1000 --sync-rounds 3 >/dev/null
for d in "$tmp/long" "$tmp/odd"; do
    "$SYNCTRACE_BIN" dump "$d" | "$PYTHON3" "$top_srcdir/tests/checkers/sync_check.py" 1 >"$tmp/sync.tap"
    ok $([ $? -eq 0 ] && ! grep -q '^not ok' "$tmp/sync.tap" && [ "$(grep -c '^ok' "$tmp/sync.tap")" -ge 7 ]; echo $?) \
        "${d##*/}: sync_check.py: skew as declared, ClockOffsets within bounds ($(grep -c '^ok' "$tmp/sync.tap") checks: $(grep -o 'worst error [^)]*' "$tmp/sync.tap"))"
done

# With one rank per node, --seed S gives each rank the skew the tracer gives
# it under SYNCTRACE_SKEW=seed=S,... (these values are from a traced run).
"$GEN" "$tmp/s1" --ranks 2 --iterations 1 --seed 1 --offset-us 1000 --drift-ppm 50 >/dev/null
skews=$("$SYNCTRACE_BIN" dump "$tmp/s1" | sed -n 's/^# rank \([0-9]*\) world_size .* skew_offset_us \(.*\) skew_drift_ppm \(.*\)$/\1:\2:\3/p' | tr '\n' ' ')
ok $([ "$skews" = "0:-263.620969:44.356423 1:828.044926:26.999823 " ]; echo $?) \
    "--seed 1 gives the skew of SYNCTRACE_SKEW=seed=1,offset_us=1000,drift_ppm=50 (rank:offset_us:drift_ppm $skews)"

# Deterministic: the same arguments give the same trace.
"$GEN" "$tmp/det1" --ranks 16 --ranks-per-node 4 --pattern random --iterations 20 --seed 5 >/dev/null
"$GEN" "$tmp/det2" --ranks 16 --ranks-per-node 4 --pattern random --iterations 20 --seed 5 >/dev/null
"$GEN" "$tmp/det3" --ranks 16 --ranks-per-node 4 --pattern random --iterations 20 --seed 6 >/dev/null
ok $(cmp -s <("$SYNCTRACE_BIN" dump "$tmp/det1") <("$SYNCTRACE_BIN" dump "$tmp/det2") \
     && ! cmp -s <("$SYNCTRACE_BIN" dump "$tmp/det1") <("$SYNCTRACE_BIN" dump "$tmp/det3"); echo $?) \
    "the same arguments give the same trace; another seed another one"

# --no-true-time: the same events, as a run without SYNCTRACE_SKEW writes
# them (no true_time attribute); they merge, with no truth in the report.
"$GEN" "$tmp/nt1" --ranks 16 --ranks-per-node 4 --pattern random --iterations 20 --seed 5 --no-true-time >/dev/null
"$SYNCTRACE_BIN" merge "$tmp/nt1" -o "$tmp/nt1.out" >/dev/null 2>&1
ok $(cmp -s <("$SYNCTRACE_BIN" dump "$tmp/det1" | sed 's/ true=[0-9]*//') <("$SYNCTRACE_BIN" dump "$tmp/nt1") \
     && ! "$SYNCTRACE_BIN" dump "$tmp/nt1" | grep -q ' true=' \
     && [ "$(json "$tmp/nt1.out/report.json" "'truth' not in d and d['tachyons_after'] == 0 and d['unmatched_sends'] == 0")" = True ]; echo $?) \
    "--no-true-time: the same events without true_time; merged without tachyons, no truth in the report"

# --min-latency: a floor the truth keeps (the generator's MIN is 2000 ns)
# tightens the bounds (each pair's by at least twice the floor, more over
# paths of several hops) and stays consistent with the truth.
"$GEN" "$tmp/ml" --ranks 8 --pattern ring --iterations 200 --latency-ns 2000:4000 --seed 7 >/dev/null
"$SYNCTRACE_BIN" merge "$tmp/ml" -o "$tmp/ml0" >/dev/null 2>&1
"$SYNCTRACE_BIN" merge "$tmp/ml" -o "$tmp/ml1500" --min-latency 1500 >/dev/null 2>&1
w0=$(json "$tmp/ml0/report.json" "d['pair_uncertainty_max_ns']")
ok $([ "$(json "$tmp/ml1500/report.json" "d['latency_violations_after'] == 0 and d['delta_ns'] == 0 and d['tachyons_after'] == 0 and d['truth']['domains_inside_bounds'] == 8 and d['pair_uncertainty_max_ns'] <= $w0 - 3000")" = True ]; echo $?) \
    "--min-latency 1500: no receive within 1500 ns of its send, truth inside the bounds, widest pair $w0 -> $(json "$tmp/ml1500/report.json" "d['pair_uncertainty_max_ns']") ns"

# An existing trace is not overwritten.
"$GEN" "$tmp/det1" --ranks 4 >/dev/null 2>"$tmp/err"
rc=$?
ok $([ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "already exists" "$tmp/err"; echo $?) \
    "an existing trace is not overwritten: exit $rc, $(cat "$tmp/err")"

# ---------------------------------------------------------------- bad arguments
bad_args() {   # bad_args LABEL ARGS...
    local label=$1; shift
    "$GEN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    ok $([ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/never" ]; echo $?) \
        "$label: exit $rc, $(cat "$tmp/err")"
}
bad_args "no arguments"
bad_args "no --ranks" "$tmp/never"
bad_args "no OUT_DIR" --ranks 4
bad_args "0 ranks" "$tmp/never" --ranks 0
bad_args "10001 ranks" "$tmp/never" --ranks 10001
bad_args "unknown pattern" "$tmp/never" --ranks 4 --pattern mesh
bad_args "MEAN below MIN" "$tmp/never" --ranks 4 --latency-ns 2000:500
bad_args "negative iterations" "$tmp/never" --ranks 4 --iterations -1
bad_args "a missing value" "$tmp/never" --ranks
bad_args "an unknown option" "$tmp/never" --ranks 4 --bogus 1
bad_args "two OUT_DIRs" "$tmp/never" "$tmp/never2" --ranks 4

# Memory that grows with locations, not with their square: 3000 ranks of a
# few events each. Every rank lists MPI_COMM_WORLD's 3000 members, and each
# location's event array was allocated for 4096 events: 575 MB before the
# lists were shared and the arrays fitted, 173 MB after (the causal index's
# build budget included), 157 MB with 32-byte event slots; 200 MB is the bound.
"$GEN" "$tmp/wide" --ranks 3000 --pattern ring --iterations 4 --no-true-time >/dev/null
peak=$("$PYTHON3" - "$top_builddir/synctrace" "$tmp/wide" "$tmp/wide.out" <<'PY'
import resource, subprocess, sys
rc = subprocess.call([sys.argv[1], 'merge', sys.argv[2], '-o', sys.argv[3]], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if rc == 0 else -1)
PY
)
ok $([ "$peak" -gt 0 ] && [ "$peak" -lt 200 ]; echo $?) "3000 ranks merged in ${peak} MB peak RSS (< 200: per location, not per location squared)"

# The in-memory merge's bytes per event: the growth of its peak RSS from a
# stencil trace to one three times longer (what does not grow with events
# cancels), without the causal index (its own budget) or true times. 86
# bytes when every event was a 56-byte struct and every send and receive a
# 56-byte match endpoint, 51 since (32-byte slots, 40-byte endpoints, the
# request tables freed before the sort): 64 is the bound.
merge_peak_kb() {
    "$PYTHON3" - "$top_builddir/synctrace" "$1" "$2" <<'PY'
import resource, subprocess, sys
rc = subprocess.call([sys.argv[1], 'merge', sys.argv[2], '-o', sys.argv[3], '--no-causal'], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
PY
}
"$GEN" "$tmp/bpe_short" --ranks 64 --pattern stencil2d --iterations 300 --no-true-time >/dev/null
"$GEN" "$tmp/bpe_long" --ranks 64 --pattern stencil2d --iterations 900 --no-true-time >/dev/null
kb_short=$(merge_peak_kb "$tmp/bpe_short" "$tmp/bpe_short.out")
kb_long=$(merge_peak_kb "$tmp/bpe_long" "$tmp/bpe_long.out")
ev_short=$(json "$tmp/bpe_short.out/report.json" "d['events']" 2>/dev/null || echo 0)
ev_long=$(json "$tmp/bpe_long.out/report.json" "d['events']" 2>/dev/null || echo 0)
per_event=$([ "$kb_short" -gt 0 ] && [ "$kb_long" -gt 0 ] && [ "$ev_long" -gt "$ev_short" ] \
             && echo $(( (kb_long - kb_short) * 1024 / (ev_long - ev_short) )) || echo -1)
ok $([ "$per_event" -gt 0 ] && [ "$per_event" -le 64 ]; echo $?) \
   "the merge holds ${per_event} bytes per event (<= 64; peak RSS ${kb_short} KB for $ev_short events, ${kb_long} KB for $ev_long)"
finish
