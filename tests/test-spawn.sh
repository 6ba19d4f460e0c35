#!/bin/bash
# test-spawn.sh — dynamic processes (tests/mpi/mpi_spawn.c): 2 parents spawn
# children that exchange messages both ways with them over the parent
# intercommunicator, run collectives on it, merge it (MPI_Intercomm_merge)
# and talk on the merged communicator, then disconnect; also two spawns in
# a row, MPI_Comm_spawn_multiple and nested spawns. Traced (with skewed clocks) and
# untraced output must be identical; each spawned job must be traced into
# RAW/spawn-N with a run.meta naming its parents' run; `synctrace merge RAW`
# must merge the spawned jobs as further ranks, every message and
# collective matched, and the merged archive must be valid for OTF2's own
# reader (otf2-print, no warning) and the independent checker
# (tests/checkers/conformance_check.py). A spawned job merged alone, and the parents
# merged without their children, and two separately launched jobs joined
# by MPI_Comm_accept/connect (tests/mpi/mpi_connect.c), each merged alone, name
# the processes outside the trace as processes without events, with
# messages to them counted apart.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
pyotf2=""
for p in "$PYTHON3" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
skew=seed=21,offset_us=1000,drift_ppm=50

if prog=$(build_mpi mpi_spawn "$tmp"); then ok 0 "build tests/mpi/mpi_spawn.c"; else ok 1 "build tests/mpi/mpi_spawn.c"; fi

# independent LABEL OUT: otf2-print reads OUT without a warning, and
# conformance_check.py's checks pass (one TAP line each).
independent() {
    otf2-print "$2/traces.otf2" >/dev/null 2>"$2.print.err"
    ok $([ $? -eq 0 ] && [ ! -s "$2.print.err" ]; echo $?) "$1: otf2-print reads the merged archive without a warning"
    [ -s "$2.print.err" ] && head -3 "$2.print.err" | sed 's/^/# /'
    if [ -n "$pyotf2" ]; then
        "$pyotf2" "$top_srcdir/tests/checkers/conformance_check.py" "$2" >"$2.check" 2>&1
        local rc=$?   # 1: a check failed (its own line says so); 2: it could not read the archive
        tap_from_checker "$1: " "$2.check"
        ok $([ $rc -le 1 ]; echo $?) "$1: the independent checker ran to the end"
    else
        skip "python3-otf2 not installed"
    fi
}

# one LABEL NP CHILDREN JOBS ARGS...: the program untraced and traced, the
# spawned jobs' traces, the merge of all of it.
one() {
    local label=$1 np=$2 children=$3 jobs=$4 d rc
    shift 4
    d=$tmp/${label// /_}
    mkdir -p "$d"
    run_plain "$np" "$prog" "$@" >"$d/plain.out" 2>"$d/plain.err"
    rc=$?
    ok $([ $rc -eq 0 ] && [ -s "$d/plain.out" ]; echo $?) "$label: untraced run succeeds ($(wc -l <"$d/plain.out") lines)"
    [ $rc -eq 0 ] || head -8 "$d/plain.err" | sed 's/^/# /'
    SYNCTRACE_SKEW=$skew run_traced "$d/raw" "$np" "$prog" "$@" >"$d/traced.out" 2>"$d/traced.err"
    rc=$?
    ok $rc "$label: traced run succeeds"
    [ $rc -eq 0 ] || head -5 "$d/traced.err" | sed 's/^/# /'
    cmp -s "$d/plain.out" "$d/traced.out"
    ok $? "$label: output identical with and without the tracer"
    ! grep -qE '\[OTF2\]|synctrace' "$d/traced.err"
    ok $? "$label: no OTF2 or tracer messages on stderr"
    # each spawned job: its own trace in RAW/spawn-N, naming the parents
    local run_id good=0 k
    run_id=$(sed -n 's/^run_id //p' "$d/raw/run.meta")
    for k in $(seq 0 $((jobs - 1))); do
        [ "$(ls "$d/raw/spawn-$k"/rank-*.otf2 2>/dev/null | wc -l)" = "$children" ] \
            && grep -qx "spawned yes" "$d/raw/spawn-$k/run.meta" \
            && grep -qx "parent.run_id $run_id" "$d/raw/spawn-$k/run.meta" && good=$((good + 1))
    done
    ok $([ "$good" = "$jobs" ] && [ ! -e "$d/raw/spawn-$jobs" ]; echo $?) \
        "$label: $jobs spawned job(s) traced into RAW/spawn-N, $children ranks each, run.meta naming the parents' run ($good found)"
    # the whole run merged: parents and children as one trace
    "$SYNCTRACE_BIN" merge "$d/raw" -o "$d/merged" >"$d/merge.out" 2>&1
    rc=$?
    local r=$d/merged/report.json total=$((np + jobs * children + nested * 2)) merged=$((jobs + nested))
    ok $([ $rc -eq 0 ] && [ "$(json "$r" "(d['ranks'], d['spawned_jobs']['merged'], d['outside']['processes'])")" = "($total, $merged, 0)" ] \
        && [ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'] + d['tachyons_after']")" = 0 ]; echo $?) \
        "$label: synctrace merge RAW merges the spawned jobs: $(json "$r" "d['ranks']" 2>/dev/null) ranks ($total expected), $(json "$r" "d['messages']" 2>/dev/null) messages and $(json "$r" "d['collectives']" 2>/dev/null) collectives, none unmatched"
    [ $rc -eq 0 ] || sed 's/^/# /' "$d/merge.out" | head -5
    independent "$label: parents and children" "$d/merged"
    # a spawned job alone: its parents are processes outside the trace
    # (its own children, nested, merged with it)
    "$SYNCTRACE_BIN" merge "$d/raw/spawn-0" -o "$d/child" >"$d/child.out" 2>&1
    rc=$?
    r=$d/child/report.json
    ok $([ $rc -eq 0 ] && [ "$(json "$r" "(d['ranks'], d['outside']['processes'])")" = "($((children + nested * 2)), $np)" ] \
        && [ "$(json "$r" "d['outside']['sends'] > 0 and d['outside']['receives'] > 0 and d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'] == 0")" = True ]; echo $?) \
        "$label: spawn-0 merged alone: its $np parents outside the trace ($(json "$r" "d['outside']" 2>/dev/null)), nothing unmatched"
    independent "$label: spawn-0 alone" "$d/child"
}

if [ -x "$prog" ]; then
    nested=0
    one "2 parents spawn 2" 2 2 1 2
    one "two spawns in a row" 2 3 2 3 twice
    one "MPI_Comm_spawn_multiple" 2 3 1 3 multiple
    # the children spawn 2 grandchildren each time: RAW/spawn-0/spawn-0
    nested=1
    one "nested spawns" 2 2 1 2 nested
    ok $([ -f "$tmp/nested_spawns/raw/spawn-0/spawn-0/run.meta" ] \
        && grep -qx "parent.run_id $(sed -n 's/^run_id //p' "$tmp/nested_spawns/raw/spawn-0/run.meta")" \
            "$tmp/nested_spawns/raw/spawn-0/spawn-0/run.meta"; echo $?) \
        "nested spawns: the grandchildren traced into RAW/spawn-0/spawn-0, run.meta naming the children's run"
    # the parents without their children's traces: the children are outside
    d=$tmp/parents_only
    mkdir -p "$d/raw"
    cp -r "$tmp/2_parents_spawn_2/raw"/rank-* "$tmp/2_parents_spawn_2/raw/run.meta" "$d/raw/"
    "$SYNCTRACE_BIN" merge "$d/raw" -o "$d/merged" >"$d/merge.out" 2>&1
    rc=$?
    r=$d/merged/report.json
    ok $([ $rc -eq 0 ] && [ "$(json "$r" "(d['ranks'], d['outside']['processes'], d['spawned_jobs']['merged'])")" = "(2, 2, 0)" ] \
        && [ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives']")" = 0 ]; echo $?) \
        "parents without their children's traces: the 2 children outside the trace ($(json "$r" "d['outside']" 2>/dev/null)), nothing unmatched"
    independent "parents alone" "$d/merged"
    # without injected skew the processes of one host read one clock: the
    # children's ranks join their parents' clock domain
    d=$tmp/one_clock
    mkdir -p "$d"
    run_traced "$d/raw" 2 "$prog" >/dev/null 2>&1
    "$SYNCTRACE_BIN" merge "$d/raw" -o "$d/merged" >"$d/merge.out" 2>&1
    rc=$?
    r=$d/merged/report.json
    ok $([ $rc -eq 0 ] && [ "$(json "$r" "(d['ranks'], len(d['domains']), d['delta_ns'], d['unmatched_sends'] + d['unmatched_receives'])")" = "(4, 1, 0.0, 0)" ]; echo $?) \
        "one host, one clock: parents and children in one clock domain ($(json "$r" "len(d['domains'])" 2>/dev/null) found), delta 0"
else
    skip "no test program"
fi

# Two separately launched jobs joined by MPI_Comm_accept/connect (through
# ompi-server, which Open MPI needs for that): traced, each into its own
# directory, the same output as untraced; each merged alone names the
# other job's 2 processes as outside the trace, and reads cleanly.
# connect_pair OUT [RAW_PREFIX]: server and client, sorted output in OUT.
connect_pair() {
    local out=$1 raw=${2:-} sp k rc=0 side
    rm -f "$d/uri" "$d/port" "$d/port.tmp"
    ompi-server --no-daemonize --report-uri "$d/uri" >/dev/null 2>&1 &
    sp=$!
    for k in $(seq 100); do [ -s "$d/uri" ] && break; sleep 0.1; done
    for side in server client; do
        timeout 60 "$MPIRUN" --allow-run-as-root --oversubscribe --ompi-server "file:$d/uri" -np 2 \
            ${raw:+-x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$raw-$side" -x SYNCTRACE_SKEW="$skew"} \
            "$cprog" "$side" "$d/port" >"$out.$side" 2>"$out.$side.err" &
        eval "pid_$side=\$!"
    done
    wait "$pid_server" || rc=1
    wait "$pid_client" || rc=1
    kill "$sp" 2>/dev/null
    wait "$sp" 2>/dev/null
    sort "$out.server" "$out.client" >"$out"
    return $rc
}
d=$tmp/connect
mkdir -p "$d"
if ! command -v ompi-server >/dev/null; then
    for i in $(seq 7); do skip "ompi-server not installed"; done
elif ! cprog=$(build_mpi mpi_connect "$tmp"); then
    ok 1 "build tests/mpi/mpi_connect.c"
else
    connect_pair "$d/plain"
    ok $([ $? -eq 0 ] && [ "$(wc -l <"$d/plain")" = 4 ]; echo $?) "accept/connect: untraced, both jobs run ($(wc -l <"$d/plain") lines)"
    connect_pair "$d/traced" "$d/raw"
    rc=$?
    ok $([ $rc -eq 0 ] && cmp -s "$d/plain" "$d/traced"; echo $?) "accept/connect: traced, the same output"
    ! cat "$d/traced".*.err | grep -qE '\[OTF2\]|synctrace'
    ok $? "accept/connect: no OTF2 or tracer messages on stderr"
    for side in server client; do
        "$SYNCTRACE_BIN" merge "$d/raw-$side" -o "$d/m-$side" >"$d/m-$side.out" 2>&1
        rc=$?
        r=$d/m-$side/report.json
        ok $([ $rc -eq 0 ] && [ "$(json "$r" "(d['ranks'], d['outside']['processes'], d['outside']['sends'] > 0, d['outside']['collectives'] > 0, d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'])")" = "(2, 2, True, True, 0)" ]; echo $?) \
            "accept/connect: the $side's trace merged alone: the other job's 2 processes outside the trace ($(json "$r" "d['outside']" 2>/dev/null)), nothing unmatched"
        independent "accept/connect: $side" "$d/m-$side"
    done
fi

plan "$_tap_n"
finish
