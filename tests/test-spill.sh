#!/bin/bash
# The match's sorts beyond their memory (--sort-memory) and the events set
# aside until the write beyond theirs (--event-memory, which the matched
# messages share): a merge whose sorts spill to disk and whose events and
# messages wait there writes the same archive, causal index and
# report as one that holds all in memory, file for file; report.json says
# that it spilled; the spill
# files leave nothing behind; a spill directory that cannot be used, or a
# spill write that fails, gets one line and a non-zero exit, never a crash,
# and no output. Traces: generator patterns (point-to-point, wildcard
# receives, collectives) and traced programs with threads, zero-byte and
# neighbourhood collectives.
. "$top_srcdir/tests/lib.sh"
plan 36
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }

spill=$tmp/spill
mkdir -p "$spill"
# Merge $1 in memory and with 1 MB for the sorts and no memory for the
# events; the two must agree, and the second must have spilled ($2: the
# least number of runs it must write) and set every event aside.
same_when_spilled() {
    local raw=$1 least=$2 name
    name=$(basename "$raw")
    "$ST" merge "$raw" -o "$tmp/$name.mem" --no-causal >/dev/null 2>"$tmp/$name.err" || {
        ok 1 "$name: merged in memory ($(head -1 "$tmp/$name.err"))"; ok 1 "$name: spilled"; return; }
    "$ST" merge "$raw" -o "$tmp/$name.disk" --no-causal --sort-memory 1 --event-memory 0 --spill-dir "$spill" \
        >/dev/null \
        2>"$tmp/$name.err" || {
        ok 1 "$name: merged spilling ($(head -1 "$tmp/$name.err"))"; ok 1 "$name: spilled"; return; }
    local runs diff
    runs=$(json "$tmp/$name.disk/report.json" "d['match_sorts']['runs_spilled']")
    diff=$(merged_differences "$tmp/$name.mem" "$tmp/$name.disk" | tr '\n' ' ')
    [ -z "$diff" ]
    ok $? "$name: the merge that spilled wrote what the one in memory wrote${diff:+ (differ: $diff)}"
    local aside events msgs messages colls collectives
    aside=$(json "$tmp/$name.disk/report.json" "d['events_set_aside_bytes']")
    events=$(json "$tmp/$name.disk/report.json" "d['events']")
    msgs=$(json "$tmp/$name.disk/report.json" "d['messages_set_aside_bytes']")
    messages=$(json "$tmp/$name.disk/report.json" "d['messages']")
    colls=$(json "$tmp/$name.disk/report.json" "d['collectives_set_aside_bytes']")
    collectives=$(json "$tmp/$name.disk/report.json" "d['collectives']")
    # an instance is 40 bytes and 72 per member (at least one)
    [ "$runs" -ge "$least" ] && [ "$(json "$tmp/$name.mem/report.json" "d['match_sorts']['runs_spilled']")" = 0 ] &&
        [ "$aside" -ge $((events * 36)) ] && [ "$(json "$tmp/$name.mem/report.json" "d['events_set_aside_bytes']")" = 0 ] &&
        [ "$msgs" = $((messages * 64)) ] && [ "$(json "$tmp/$name.mem/report.json" "d['messages_set_aside_bytes']")" = 0 ] &&
        [ "$colls" -ge $((collectives * 112)) ] && [ "$(json "$tmp/$name.mem/report.json" "d['collectives_set_aside_bytes']")" = 0 ]
    ok $? "$name: its sorts spilled $runs runs to disk (at least $least), it set $aside bytes of its $events events, $msgs of its $messages messages and $colls of its $collectives collectives aside, the one in memory none"
}

for pattern in stencil2d random tree alltoall; do
    "$GEN" "$tmp/gen_$pattern" --ranks 16 --pattern $pattern --iterations 400 --ranks-per-node 2 >/dev/null
    same_when_spilled "$tmp/gen_$pattern" 2
done

# Few ranks of many events: each location is read and set aside in many
# chunks (4096 events each with --event-memory 0), so requests posted in
# one chunk complete in another, and collective calls and wildcard
# receives straddle chunk ends.
for pattern in stencil2d tree random; do
    "$GEN" "$tmp/few_$pattern" --ranks 3 --pattern $pattern --iterations 4000 >/dev/null
    same_when_spilled "$tmp/few_$pattern" 1
done

# The readers hand locations to the match in whatever order their threads
# finish: one thread or four, the output is the same.
"$ST" merge "$tmp/gen_random" -o "$tmp/jobs4" --no-causal --jobs 4 --sort-memory 1 --event-memory 0.5 \
    --spill-dir "$spill" >/dev/null 2>"$tmp/jobs4.err" &&
    "$ST" merge "$tmp/gen_random" -o "$tmp/jobs1" --no-causal --jobs 1 >/dev/null 2>>"$tmp/jobs4.err"
diff=$(merged_differences "$tmp/jobs1" "$tmp/jobs4" | tr '\n' ' ')
[ -z "$diff" ] && [ -s "$tmp/jobs4/report.json" ]
ok $? "gen_random read by 1 thread and by 4 (spilling, and most of its events set aside): the same output${diff:+ (differ: $diff)}$(head -1 "$tmp/jobs4.err")"

# The least memory: the table of a location's open requests holds only a
# few, so nearly every request goes through the sort by (rank, request):
# still the same output, and more spilled than with 1 MB.
"$ST" merge "$tmp/gen_stencil2d" -o "$tmp/least" --no-causal --sort-memory 0.002 --spill-dir "$spill" >/dev/null \
    2>"$tmp/least.err"
diff=$(merged_differences "$tmp/gen_stencil2d.mem" "$tmp/least" | tr '\n' ' ')
[ -z "$diff" ]
ok $? "gen_stencil2d with 2 KB for the sorts: the same output${diff:+ (differ: $diff)}"
a=$(json "$tmp/least/report.json" "d['match_sorts']['spilled_bytes']")
b=$(json "$tmp/gen_stencil2d.disk/report.json" "d['match_sorts']['spilled_bytes']")
[ "$a" -gt "$b" ]
ok $? "with 2 KB the requests go through the sort: $a bytes spilled, $b with 1 MB"

# The causal index reads the matched messages too: built from messages
# set aside, it is the one built from messages in memory (its header's
# build identity apart: merged_differences, tests/lib.sh).
"$ST" merge "$tmp/gen_stencil2d" -o "$tmp/idx.mem" >/dev/null 2>"$tmp/idx.err" &&
    "$ST" merge "$tmp/gen_stencil2d" -o "$tmp/idx.disk" --event-memory 0 --spill-dir "$spill" >/dev/null \
        2>>"$tmp/idx.err"
diff=$(merged_differences "$tmp/idx.mem" "$tmp/idx.disk" | tr '\n' ' ')
[ -z "$diff" ] && [ -s "$tmp/idx.disk/causal.idx" ] &&
    [ "$(json "$tmp/idx.disk/report.json" "d['messages_set_aside_bytes']")" -gt 0 ]
ok $? "gen_stencil2d: the causal index (and all else) built from messages set aside is the one built from messages in memory${diff:+ (differ: $diff)}$(head -1 "$tmp/idx.err")"

# A traced program: what only real runs hold (threads of one rank as
# locations of their own, requests posted on one thread and completed on
# another, non-blocking collectives, MPI_COMM_SELF).
if mpicc -std=c11 -D_GNU_SOURCE -O1 -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" -lm &&
    SYNCTRACE_SKEW=seed=5,offset_us=300,drift_ppm=10 run_traced "$tmp/raw_threads" 4 "$tmp/mpi_threads" 400 \
        >/dev/null 2>&1; then
    same_when_spilled "$tmp/raw_threads" 2
else
    ok 1 "mpi_threads: traced"
    ok 1 "mpi_threads: traced"
fi

# Sparse collective members (zero counts, neighbourhoods): whom each
# received from is read by the match after the pass, when the member's
# events may already wait on disk.
for p in mpi_zerobytes mpi_neighbours; do
    if bin=$(build_mpi $p "$tmp") &&
        SYNCTRACE_SKEW=seed=6,offset_us=300,drift_ppm=10 run_traced "$tmp/raw_$p" 4 "$bin" 40 >/dev/null 2>&1; then
        same_when_spilled "$tmp/raw_$p" 0
    else
        ok 1 "$p: traced"
        ok 1 "$p: traced"
    fi
done

left=$(ls -A "$spill" | wc -l)
[ "$left" = 0 ]
ok $? "the spill directory is empty after the merges ($left entries)"

# A spill directory that cannot be used: one line, exit 2, before any reading.
"$ST" merge "$tmp/gen_tree" -o "$tmp/bad.out" --spill-dir "$tmp/none" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && grep -q "$tmp/none" "$tmp/bad.err" && [ ! -e "$tmp/bad.out" ]
ok $? "a missing --spill-dir: exit $rc, one line naming it: $(head -1 "$tmp/bad.err")"
"$ST" merge "$tmp/gen_tree" -o "$tmp/bad.out" --sort-memory 0 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ]
ok $? "--sort-memory 0: exit $rc, one line: $(head -1 "$tmp/bad.err")"
"$ST" merge "$tmp/gen_tree" -o "$tmp/bad.out" --event-memory -1 >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && grep -q "^synctrace merge: --event-memory takes megabytes" "$tmp/bad.err" &&
    [ ! -e "$tmp/bad.out" ]
ok $? "--event-memory -1: exit $rc, one line: $(head -1 "$tmp/bad.err")"
"$ST" merge "$tmp/gen_tree" -o "$tmp/bad.out" --precision-sources >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ]
ok $? "an option without its value at the end of the line: exit $rc, one line: $(head -1 "$tmp/bad.err")"

# OUT_DIR's directory (where OUT is built, and the match spills) missing:
# said before anything is read.
"$ST" merge "$tmp/gen_tree" -o "$tmp/none/out" >/dev/null 2>"$tmp/noout.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/noout.err")" = 1 ] && grep -q "^synctrace merge: $tmp/none: " "$tmp/noout.err" &&
    [ ! -e "$tmp/none" ]
ok $? "OUT_DIR in a missing directory: exit $rc, one line naming it: $(head -1 "$tmp/noout.err")"

# A spill that cannot be written (a file-size limit; SIGXFSZ would kill a
# process that did not expect it): one line naming the spill directory,
# exit 1, no output directory, nothing left behind. fails_cleanly LABEL
# PATTERN OPTIONS...: the merge of gen_stencil2d (without true times,
# which would go first and only be left out) with OPTIONS under a 256 KB
# file-size limit, its one line matching PATTERN.
"$GEN" "$tmp/gen_stencil2d_nt" --ranks 16 --pattern stencil2d --iterations 400 --ranks-per-node 2 --no-true-time \
    >/dev/null
fails_cleanly() {
    local label=$1 pattern=$2 rc
    shift 2
    (ulimit -f 256; exec "$ST" merge "$tmp/gen_stencil2d_nt" -o "$tmp/full.out" --no-causal --spill-dir "$spill" "$@") \
        >/dev/null 2>"$tmp/full.err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] && grep -q "$pattern" "$tmp/full.err"
    ok $? "$label fails: exit $rc, one line: $(head -1 "$tmp/full.err")"
    [ ! -e "$tmp/full.out" ] && [ -z "$(ls -A "$tmp" | grep '^full.out')" ] && [ "$(ls -A "$spill" | wc -l)" = 0 ]
    ok $? "$label fails: no output and no spill file left"
}
fails_cleanly "a spill write" "$spill" --sort-memory 1
# ... and so does setting the events aside (the sorts in memory).
fails_cleanly "setting events aside" "events set aside in $spill: write: File too large" --event-memory 0

# The causal index written straight into its file (2.4 MB here) beyond a
# 1 MB file-size limit the archive's files stay within: the merge goes on
# without it and says why in one line naming the file (not "out of
# memory"); report.json says the same; no index or temporary file is left.
# The true times (1.75 MB set aside as they are read) do not fit either:
# the merge goes on without the comparison with true time (nor the
# controlled logical clock's, which needs them), in one line of its own
# naming the directory, and the archive carries no true_time.
(ulimit -f 1024; exec "$ST" merge "$tmp/gen_stencil2d" -o "$tmp/noidx" >/dev/null 2>"$tmp/noidx.err")
rc=$?
[ $rc = 0 ] && [ "$(wc -l <"$tmp/noidx.err")" = 2 ] &&
    grep -q "^synctrace merge: warning: no causal index: causal index: causal.idx: write: File too large$" "$tmp/noidx.err" &&
    grep -q "^synctrace merge: warning: no comparison with true time: the true times set aside in $tmp: write: File too large$" "$tmp/noidx.err"
ok $? "an index and the true times over the file-size limit: exit $rc, one line for each: $(tr '\n' ' ' <"$tmp/noidx.err")"
[ -e "$tmp/noidx/traces.otf2" ] && [ -z "$(ls "$tmp/noidx" | grep causal)" ] &&
    [ "$(json "$tmp/noidx/report.json" "d['causal_index']['built']")" = False ] &&
    json "$tmp/noidx/report.json" "d['causal_index']['error']" | grep -q "File too large" &&
    [ "$(json "$tmp/noidx/report.json" "'truth' in d")" = False ]
ok $? "an index over the file-size limit: the archive in place, no causal.idx or temporary file, report.json says why (and has no truth figures)"

finish
