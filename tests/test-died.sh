#!/bin/bash
# test-died.sh — a job that dies still merges (4 ranks): every intact rank is
# merged, and the merge says in one line per rank what was lost and why
# (also in report.json's "incomplete"):
#   send99    rank 1 calls MPI_Send to rank 99 under MPI_ERRORS_ARE_FATAL
#             (tests/mpi/mpi_died.c): Open MPI kills the job; the tracer closes
#             rank 1's archive on that path without changing what the
#             program sees (its error handler), Open MPI's report or the
#             exit status
#   abortall  every rank calls MPI_Abort
#   kill9     rank 2 is SIGKILLed before its first buffer flush
#             (tests/mpi/mpi_kill9.c): everything it recorded comes back from
#             its records file (src/records.c), its last MPI_Iprobe (a
#             polling run still open) too; without that file (a tracer with
#             SYNCTRACE_KILL_SAFE=0) it is a rank without events; the
#             others merge either way
#   in-write  SIGTERM comes while the tracer writes an event (made
#             deterministic by tests/shims/signal_in_write.c, a shim preloaded
#             before the tracer that raises it inside the 300th OTF2 Enter
#             of rank 3, tests/mpi/mpi_crash.c): the write finishes before the
#             archive is closed (else a half-written record, or a lost one)
# Corruption of a closed archive, or a missing rank, stay errors.
. "$top_srcdir/tests/lib.sh"
plan 20
tmp=$(scratch)
json() { "${PYTHON3:-python3}" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
if ! died=$(build_mpi mpi_died "$tmp") || ! kill9=$(build_mpi mpi_kill9 "$tmp"); then
    for i in $(seq 20); do ok 1 "build tests/mpi/mpi_died.c and tests/mpi/mpi_kill9.c"; done
    finish
fi

# job DIR PROG ARGS...: run 4 ranks, traced into DIR (untraced without DIR), with a time limit.
job() {
    local dir=$1; shift
    timeout -k 5 60 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
        ${dir:+-x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir"} "$@"
}
# Open MPI's report of a fatal error, without what differs from run to run (pid, job id).
report_lines() { grep '\*\*\*' "$1" | sed -E 's/^\[[^]]*:[0-9]+\]/[HOST:PID]/; s/\[[0-9]+,([0-9]+)\]/[JOB,\1]/'; }
# merge_ok DIR REGEXP...: merge DIR into DIR.m; 0 when it succeeds with one warning line per
# rank, matching the REGEXPs in rank order.
merge_ok() {
    local dir=$1; shift
    "$SYNCTRACE_BIN" merge "$dir" -o "$dir.m" >"$dir.merge.out" 2>"$dir.merge.err" || return 1
    [ -f "$dir.m/traces.otf2" ] && [ "$(wc -l <"$dir.merge.err")" -eq $# ] || return 1
    local r=0 want
    for want in "$@"; do
        sed -n "$((r + 1))p" "$dir.merge.err" | grep -qE "^synctrace merge: warning: .*$want" || return 1
        r=$((r + 1))
    done
}

# --- send99: a fatal MPI error on rank 1
# Open MPI itself loses some or all of its report now and then, untraced too
# (the process is killed before its stderr is forwarded: 2 runs in 8 lost
# every line here), so each side is run until it printed one (at most 5
# times): the traced report must hold every line of the untraced one.
report_seen() { [ -n "$(report_lines "$1")" ]; }
for attempt in 1 2 3 4 5; do
    job "" "$died" send99 >"$tmp/plain.out" 2>"$tmp/plain.err"
    plain_rc=$?
    report_seen "$tmp/plain.err" && break
done
for attempt in 1 2 3 4 5; do
    rm -rf "$tmp/s"
    job "$tmp/s" "$died" send99 >"$tmp/s.out" 2>"$tmp/s.err"
    rc=$?
    report_seen "$tmp/s.err" \
        && [ -z "$(comm -23 <(report_lines "$tmp/plain.err" | sort -u) <(report_lines "$tmp/s.err" | sort -u))" ] && break
done
diag "send99: mpirun exits $rc traced, $plain_rc untraced (traced run $attempt)"
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -eq $plain_rc ]
ok $? "send99: the exit status is Open MPI's, as untraced ($rc)"
report_seen "$tmp/s.err" \
    && [ -z "$(comm -23 <(report_lines "$tmp/plain.err" | sort -u) <(report_lines "$tmp/s.err" | sort -u))" ]
ok $? "send99: Open MPI's error report is there, with every line of the untraced one ($(report_lines "$tmp/s.err" | sed -n 1p))"
cmp -s "$tmp/plain.out" "$tmp/s.out" && grep -q "DYING with MPI_COMM_WORLD's error handler MPI_ERRORS_ARE_FATAL" "$tmp/s.out"
ok $? "send99: the program's output is the same, and it still sees MPI_ERRORS_ARE_FATAL as its error handler"
"$SYNCTRACE_BIN" dump "$tmp/s" >"$tmp/s.dump" 2>/dev/null
[ -f "$tmp/s/rank-000001.sum" ] && [ "$(grep '^1 ' "$tmp/s.dump" | tail -1 | grep -c 'ENTER .*region=MPI_Send$')" -eq 1 ]
ok $? "send99: rank 1 closed its archive on Open MPI's fatal-error path; its last event is the Enter of the failing MPI_Send"
merge_ok "$tmp/s" "rank 0 ended without MPI_Finalize" "rank 1 ended without MPI_Finalize" \
    "rank 2 ended without MPI_Finalize" "rank 3 ended without MPI_Finalize"
ok $? "send99: the merge succeeds and says in one line per rank what was lost ($(sed -n 2p "$tmp/s.merge.err"))"
[ "$(json "$tmp/s.m/report.json" "[x['rank'] for x in d['incomplete']] == [0, 1, 2, 3] and d['messages'] == 80 and d['unmatched_sends'] + d['unmatched_receives'] == 0")" = True ]
ok $? "send99: report.json names the 4 incomplete ranks, and all 80 ring messages are matched"

# --- abortall: every rank calls MPI_Abort
job "" "$died" abortall >/dev/null 2>&1
plain_rc=$?
job "$tmp/a" "$died" abortall >/dev/null 2>"$tmp/a.err"
rc=$?
[ $rc -eq $plain_rc ] && [ $rc -ne 0 ] && [ $rc -ne 124 ]
ok $? "abortall: the exit status is as untraced ($rc)"
# The first MPI_Abort ends the job: Open MPI kills the ranks still in
# theirs, and one may be killed while it closes its archive (seen once in
# a loaded CI run); its records journal then gives its events back.
closed_or_recovered() {   # closed_or_recovered RANK: the merge's line for it
    printf '(rank %d ended without MPI_Finalize|rank-%06d: .*(recovered [0-9]+ events from a rank that was killed|killed before))' \
        "$1" "$1"
}
merge_ok "$tmp/a" "$(closed_or_recovered 0)" "$(closed_or_recovered 1)" "$(closed_or_recovered 2)" \
    "$(closed_or_recovered 3)"
merged=$?
sums=$(ls "$tmp"/a/rank-*.sum 2>/dev/null | wc -l)
recovered=$(grep -cE "rank-[0-9]+: .*(recovered [0-9]+ events from a rank that was killed|killed before)" "$tmp/a.merge.err")
[ $merged = 0 ] && [ $((sums + recovered)) -eq 4 ]
ok $? "abortall: every rank closed its archive, or was killed while it did and is recovered ($sums checksum files, $recovered recovered)"
[ $merged = 0 ]
ok $? "abortall: the merge succeeds, one line per rank ($(head -1 "$tmp/a.merge.err"))"
[ "$(json "$tmp/a.m/report.json" "d['messages'] == 80 and len(d['incomplete']) == 4")" = True ]
ok $? "abortall: all 80 ring messages are merged"

# --- kill9: rank 2 killed before its first flush
job "$tmp/k" "$kill9" 10 >/dev/null 2>&1
[ ! -e "$tmp/k/rank-000002.sum" ] && [ -f "$tmp/k/rank-000002.journal" ] && [ ! -s "$tmp/k/rank-000002/2.evt" ] \
    && [ -s "$tmp/k/rank-000002.records" ]
ok $? "kill9: rank 2 left its journal and records file (no checksum file, no flushed events)"
# MPI_Init (its sync inside), Comm_rank, Comm_size, Comm_dup, Barrier and its 10 MPI_Iprobe
cp -r "$tmp/k" "$tmp/k0"
"$SYNCTRACE_BIN" dump "$tmp/k" >"$tmp/k.dump" 2>/dev/null
n=$(grep -c '^2 ' "$tmp/k.dump")
merge_ok "$tmp/k" "rank 0 ended without MPI_Finalize" "rank 1 ended without MPI_Finalize" \
    "rank-000002: recovered $n events from a rank that was killed \($n of them from its records file\): all it had recorded" \
    "rank 3 ended without MPI_Finalize" && [ "$(grep -c '^2 [0-9]* ENTER .*region=MPI_Iprobe$' "$tmp/k.dump")" -eq 10 ]
ok $? "kill9: the other ranks merge; rank 2's line says its $n events came from its records file, its 10 MPI_Iprobe among them ($(sed -n 3p "$tmp/k.merge.err"))"
rm "$tmp/k0/rank-000002.records"
merge_ok "$tmp/k0" "rank 0 ended without MPI_Finalize" "rank 1 ended without MPI_Finalize" \
    "rank-000002: killed before its first buffer flush, and before it could close its archive: no events survived" \
    "rank 3 ended without MPI_Finalize" \
    && [ "$(json "$tmp/k0.m/report.json" "d['ranks'] == 4 and [x['rank'] for x in d['incomplete']] == [0, 1, 2, 3] and 'no events survived' in d['incomplete'][2]['why']")" = True ]
ok $? "kill9 without its records file: rank 2 merges as a rank without events, and report.json says so ($(sed -n 3p "$tmp/k0.merge.err"))"
"$SYNCTRACE_BIN" query "$tmp/k0.m" --precedes 0:0 2:0 >/dev/null 2>"$tmp/k.q"
[ $? -ne 0 ] && grep -q "rank 2 has no events" "$tmp/k.q" && "$SYNCTRACE_BIN" query "$tmp/k0.m" --precedes 0:0 1:1 >/dev/null \
    && "$SYNCTRACE_BIN" query "$tmp/k.m" --precedes 0:0 2:$((n - 1)) >/dev/null
ok $? "kill9: the causal index reads rank 2's recovered events, and without them names it as a rank without events ($(cat "$tmp/k.q"))"

# --- in-write: SIGTERM while the tracer writes an event
if crash=$(build_mpi mpi_crash "$tmp") && mpicc -shared -fPIC -O1 -o "$tmp/siw.so" "$top_srcdir/tests/shims/signal_in_write.c" -ldl; then
    job "" "$crash" term 1000 >/dev/null 2>&1
    plain_rc=$?
    timeout -k 5 60 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$tmp/siw.so:$SYNCTRACE_LIB" \
        -x SYNCTRACE_DIR="$tmp/w" -x SIGNAL_IN_WRITE=1 -x SIGNAL_IN_WRITE_RANK=3 "$crash" term 1000 >/dev/null 2>&1
    rc=$?
fi
[ "${rc:-0}" -ne 0 ] && [ "${rc:-0}" -eq "${plain_rc:-1}" ]
ok $? "in-write: the job ends as when rank 3 is sent SIGTERM untraced (exit ${rc:-?}, untraced ${plain_rc:-?})"
"$SYNCTRACE_BIN" dump "$tmp/w" >"$tmp/w.dump" 2>"$tmp/w.err"
# Events are recorded as compact records and written as OTF2 events later
# (in a flush, at the close): rank 3's 1000 calls fit one event chunk, which
# is written (the shim's signal comes inside that write) while the archive
# is closed on rank 3's own SIGTERM. The shim's signal waits for that
# close, which writes every recorded event.
[ -f "$tmp/w/rank-000003.sum" ] && [ "$(grep -c '^3 [0-9]* ENTER .*region=MPI_Topo_test$' "$tmp/w.dump")" -eq 1000 ] \
    && grep '^3 ' "$tmp/w.dump" | tail -1 | grep -q 'LEAVE .*region=MPI_Topo_test$'
ok $? "in-write: rank 3's archive is closed after the interrupted write, with all 1000 calls it made ($(grep -c '^3 [0-9]* ENTER .*region=MPI_Topo_test$' "$tmp/w.dump") Enters; last: $(grep '^3 ' "$tmp/w.dump" | tail -1 | cut -d' ' -f3,5))"
merge_ok "$tmp/w" "rank 0 ended" "rank 1 ended" "rank 2 ended" "rank 3 ended"
ok $? "in-write: the trace merges"

# --- what stays an error: corruption of a closed archive, a missing rank
cp -r "$tmp/s" "$tmp/sc" && printf 'x' | dd of="$tmp/sc/rank-000003/3.evt" bs=1 seek=100 conv=notrunc 2>/dev/null
"$SYNCTRACE_BIN" merge "$tmp/sc" -o "$tmp/sc.out" >/dev/null 2>"$tmp/sc.err"
[ $? -ne 0 ] && [ "$(wc -l <"$tmp/sc.err")" -eq 1 ] && grep -q "rank-000003/3.evt: corrupt" "$tmp/sc.err" && [ ! -e "$tmp/sc.out" ]
ok $? "a job that died, with a corrupted closed archive: one-line error naming the file, no output"
cp -r "$tmp/k" "$tmp/km" && rm -rf "$tmp/km/rank-000003"*
"$SYNCTRACE_BIN" merge "$tmp/km" -o "$tmp/km.out" >/dev/null 2>"$tmp/km.err"
[ $? -ne 0 ] && [ "$(wc -l <"$tmp/km.err")" -eq 1 ] && grep -q "rank-000003.otf2: missing" "$tmp/km.err" && [ ! -e "$tmp/km.out" ]
ok $? "a job that died, with a rank's archive missing: one-line error, no output ($(cat "$tmp/km.err"))"
cp -r "$tmp/s" "$tmp/mix" && rm -rf "$tmp/mix/rank-000002"* && cp -r "$tmp/a/rank-000002"* "$tmp/mix/"
"$SYNCTRACE_BIN" merge "$tmp/mix" -o "$tmp/mix.out" >/dev/null 2>"$tmp/mix.err"
[ $? -ne 0 ] && [ "$(wc -l <"$tmp/mix.err")" -eq 1 ] && grep -q "different runs" "$tmp/mix.err" && [ ! -e "$tmp/mix.out" ]
ok $? "archives of two jobs that died: one-line error, no output ($(cat "$tmp/mix.err"))"
finish
