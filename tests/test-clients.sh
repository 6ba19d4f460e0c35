#!/bin/bash
# test-clients.sh — real MPI clients from Debian, not written for this
# project, traced unmodified with skewed clocks: NetPIPE (NPopenmpi:
# preposted receives and MPI_ANY_SOURCE; synchronous sends), Python programs
# through mpi4py (tests/mpi/mpi4py_client.py, and tests/mpi/mpi4py_situations.py:
# what mpi4py's own test suite exercises), hpcc (tests/clients/hpccinf.txt:
# tiny sizes), the BLACS testers xCbtest/xFbtest and the ScaLAPACK LU and QR
# testers xdlu/xdqr (tests/clients/blacs, tests/clients/scalapack: small
# inputs) from scalapack-mpi-test. Each must give the untraced run's results
# (timings aside), and its trace must merge with every message and
# collective matched, no tachyon, delta 0 and every true offset inside its
# bounds; the merged archive is checked independently (merged_check.py,
# conformance_check.py), and so are its wait states (`synctrace waits`
# against waits_plausible.py: no wait longer than its call, the true
# totals inside their bounds, nothing left out). A failure whose fix belongs to another part of
# issue 10 is reported "not ok ... # TODO known: REASON" (only when it fails:
# see tests/test-conformance.sh); a listed check that passes says "# known
# issue not seen".
. "$top_srcdir/tests/lib.sh"
top_srcdir=$(cd "$top_srcdir" && pwd)   # the clients run in directories of their own (make distcheck: a relative srcdir)
: "${PYTHON3:=python3}"
plan 79
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
pyotf2=""
for p in "$PYTHON3" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done

merged_ok() {   # merged_ok RAW LABEL [NOTE]: 2 checks
    "$SYNCTRACE_BIN" merge "$1" -o "$1.out" >/dev/null 2>"$1.err"
    local r=$1.out/report.json
    ok $([ -f "$r" ] && [ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['incomplete_collectives'] + d['tachyons_after'] + d['nonmonotonic_after'] + d['collective_order_violations_after']")" = 0 ] \
        && [ "$(json "$r" "d['delta_ns'] == 0 and d['truth']['domains_inside_bounds'] == len(d['domains'])")" = True ]; echo $?) \
        "$2: merged: $(json "$r" "d['messages']" 2>/dev/null) messages, $(json "$r" "d['collectives']" 2>/dev/null) collectives, all matched; no tachyon (raw: $(json "$r" "d['tachyons_raw']" 2>/dev/null)), delta 0 ($(json "$r" "d['delta_ns']" 2>/dev/null)), truth inside the bounds ($(json "$r" "d['truth']['domains_inside_bounds']" 2>/dev/null) of $(json "$r" "len(d['domains'])" 2>/dev/null))${3:+ $3}"
    if [ -n "$pyotf2" ]; then
        local line
        line=$("$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" "$1.out/traces.otf2" 2>&1 | tail -1)
        ok $(echo "$line" | grep -q "tachyons 0 nonmonotonic 0 unmatched_sends 0 unmatched_receives 0$"; echo $?) \
            "$2: the merged archive, read independently: $line"
    else
        skip "python3-otf2 not installed"
    fi
}

skew=seed=21,offset_us=1000,drift_ppm=50
np=$(command -v NPopenmpi)
if [ -n "$np" ]; then
    # -n 20 repeats per size up to 16 KiB; -a preposted receives, -z MPI_ANY_SOURCE; -S MPI_Ssend
    # (not -2, both directions at once: NetPIPE deadlocks there untraced, with blocking sends)
    for mode in "-a -z" "-S"; do
        tag=$(echo "$mode" | tr -d ' -')
        (cd "$tmp" && run_plain 2 "$np" -n 20 -u 16384 $mode -o "$tmp/np$tag.plain" >/dev/null 2>&1)
        (cd "$tmp" && SYNCTRACE_SKEW=$skew run_traced "$tmp/np$tag" 2 "$np" -n 20 -u 16384 $mode -o "$tmp/np$tag.traced" \
            >/dev/null 2>&1)
        ok $([ $? -eq 0 ] && [ -s "$tmp/np$tag.plain" ] \
            && [ "$(wc -l <"$tmp/np$tag.traced")" = "$(wc -l <"$tmp/np$tag.plain")" ]; echo $?) \
            "NetPIPE $mode: traced, it measures every size the untraced run does ($(wc -l <"$tmp/np$tag.plain") sizes)"
        merged_ok "$tmp/np$tag" "NetPIPE $mode"
    done
else
    for i in 1 2 3 4 5 6; do skip "NetPIPE (netpipe-openmpi) not installed"; done
fi

py=/usr/bin/python3
if "$py" -c "import mpi4py" 2>/dev/null; then
    run_plain 3 "$py" "$top_srcdir/tests/mpi/mpi4py_client.py" 2>&1 | sort >"$tmp/py.plain"
    # This run is short (about a second between its two sync rounds), so a
    # loaded 2-core machine can misjudge a clock's drift from them enough for
    # the run's own messages to contradict it (delta > 0: 3 of 6 runs on
    # 2026-11-27 with a build running beside them; the previous merge gave
    # the same deltas on the same raw traces). As in test-neighbours.sh, such
    # a run is taken again, at most four times in all; every attempt must
    # print what the untraced run prints and merge with every message
    # matched and no tachyon.
    said="" bad=0
    for attempt in 1 2 3 4; do
        rm -rf "$tmp/py" "$tmp/py.probe"
        SYNCTRACE_SKEW=$skew run_traced "$tmp/py" 3 "$py" "$top_srcdir/tests/mpi/mpi4py_client.py" 2>&1 | sort >"$tmp/py.traced"
        cmp -s "$tmp/py.plain" "$tmp/py.traced" || bad=1
        "$SYNCTRACE_BIN" merge "$tmp/py" -o "$tmp/py.probe" --no-causal >/dev/null 2>&1
        r=$tmp/py.probe/report.json
        [ "$(json "$r" "d['unmatched_sends'] + d['unmatched_receives'] + d['tachyons_after']" 2>/dev/null)" = 0 ] || bad=1
        said="$said [run $attempt: delta $(json "$r" "d['delta_ns']" 2>/dev/null)]"
        [ "$(json "$r" "d['delta_ns']" 2>/dev/null)" = 0.0 ] && break
    done
    ok $([ "$(grep -c checksum "$tmp/py.plain")" = 3 ] && [ $bad = 0 ]; echo $?) \
        "mpi4py: traced, every rank prints what it prints untraced, every attempt ($(head -1 "$tmp/py.plain"))"
    merged_ok "$tmp/py" "mpi4py" "$said"
else
    for i in 1 2 3; do skip "python3-mpi4py not installed"; done
fi
# tap STATUS DESCRIPTION [REASON]: one TAP line; a failure with a REASON is
# a known one ("# TODO known: REASON").
tap() {
    _tap_n=$((_tap_n + 1))
    local line="ok $_tap_n - $2"
    if [ "$1" -eq 0 ]; then
        [ -z "${3:-}" ] || echo "# known issue not seen: $2"
    else
        line="not $line"
        [ -z "${3:-}" ] || line="$line # TODO known: $3"
    fi
    echo "$line"
}

# independent CLIENT OUT [CHECKS REASON]: the merged archive OUT checked by
# conformance_check.py (8 TAP lines) and its waits (1); the CHECKS named (space-separated)
# fail today for REASON, owned by another part of issue 10.
independent() {
    local label=$1 out=$2 marked=" ${3:-} " reason=${4:-} c line st why
    if [ -n "$pyotf2" ] && [ -f "$out/report.json" ]; then
        "$pyotf2" "$top_srcdir/tests/checkers/conformance_check.py" "$out" >"$out.check" 2>&1
    else
        echo "no merged archive or no Python otf2 module" >"$out.check"
    fi
    for c in monotonic tachyons matched dataflow error bounds report life; do
        line=$(grep -E "^(not )?ok - $c: " "$out.check")
        [ -n "$line" ] || line="not ok - $c: $(tail -1 "$out.check")"
        case $line in ok*) st=0 ;; *) st=1 ;; esac
        why=""
        case $marked in *" $c "*) why=$reason ;; esac
        [ -f "$out/report.json" ] || why=""   # a harness failure is never "known"
        tap $st "$label: ${line#*ok - }" "$why"
    done
    # the wait states of a real client: possible figures (no wait longer
    # than its call, bounds around the merged and the true totals), nothing
    # of the trace left out (tests/checkers/waits_plausible.py)
    if [ -n "$pyotf2" ] && [ -f "$out/report.json" ] && "$SYNCTRACE_BIN" waits "$out" --json >"$out.waits" 2>&1; then
        "$pyotf2" "$top_srcdir/tests/checkers/waits_plausible.py" "$out" >"$out.waits.check" 2>&1
    else
        echo "not ok - waits: $(tail -1 "$out.waits" 2>/dev/null || echo 'no merged archive or no Python otf2 module')" >"$out.waits.check"
    fi
    line=$(grep -E "^(not )?ok - " "$out.waits.check" | tail -1)
    [ -n "$line" ] || line="not ok - $(tail -1 "$out.waits.check")"
    case $line in ok*) st=0 ;; *) st=1 ;; esac
    tap $st "$label: waits: ${line#*ok - }" ""
}

# same_results LABEL PLAIN TRACED REASON FILTER...: the result lines (picked
# by the command FILTER from each output) and the exit codes (RC_PLAIN,
# RC_TRACED) agree; one TAP line.
same_results() {
    local label=$1 plain=$2 traced=$3 why=$4
    shift 4
    "$@" <"$plain" >"$plain.results"
    "$@" <"$traced" >"$traced.results"
    [ "$RC_PLAIN" = 0 ] && [ "$RC_TRACED" = 0 ] && [ -s "$plain.results" ] && cmp -s "$plain.results" "$traced.results"
    tap $? "$label: traced, the same results as untraced ($(wc -l <"$plain.results") result lines; exit $RC_PLAIN, traced $RC_TRACED)" "$why"
}

# run_client LABEL NP DIR PROGRAM ARGS...: PROGRAM untraced in DIR/plain and
# traced in DIR/traced (each its own working directory holding DIR/input/*),
# stdout to DIR/{plain,traced}.out, exit codes in RC_PLAIN and RC_TRACED;
# then merged into DIR/merged.
run_client() {
    local np=$2 dir=$3
    shift 3
    mkdir -p "$dir/plain" "$dir/traced"
    if [ -d "$dir/input" ]; then cp "$dir"/input/* "$dir/plain/"; cp "$dir"/input/* "$dir/traced/"; fi
    (cd "$dir/plain" && run_plain "$np" "$@" >"$dir/plain.out" 2>"$dir/plain.err")
    RC_PLAIN=$?
    (cd "$dir/traced" && SYNCTRACE_SKEW=$skew run_traced "$dir/raw" "$np" "$@" >"$dir/traced.out" 2>"$dir/traced.err")
    RC_TRACED=$?
    "$SYNCTRACE_BIN" merge "$dir/raw" -o "$dir/merged" >"$dir/merge.out" 2>&1
}

# mpi4py_situations.py in two runs: every situation but MPI_Comm_spawn, and
# MPI_Comm_spawn alone (the child is traced into RAW/spawn-0 and merged
# with its parents as a fifth rank: tests/test-spawn.sh).
if "$py" -c "import mpi4py" 2>/dev/null; then
    for run in clean spawn; do
        case $run in
        clean) sel="--skip spawn" marks="" why="" ;;
        spawn) sel="--only spawn" marks="" why="" ;;
        esac
        d=$tmp/m4py-$run
        mkdir -p "$d"
        run_client "mpi4py $run" 4 "$d" "$py" -m mpi4py "$top_srcdir/tests/mpi/mpi4py_situations.py" $sel "$d"
        same_results "mpi4py situations ($run: $sel)" "$d/plain.out" "$d/traced.out" "" cat
        independent "mpi4py situations ($run)" "$d/merged" "$marks" "$why"
    done
else
    for i in $(seq 20); do skip "python3-mpi4py not installed"; done
fi

# hpcc: HPL, PTRANS, STREAM, RandomAccess, FFT, latency/bandwidth rings on a
# 2x2 grid, tiny sizes; the result lines (residuals, error counts, checks)
# must agree, timings aside ("Scaled residual" of the FFT varies untraced).
hpcc_results() {
    grep -E 'Found .* errors|residual checks|\|\|Ax-b\|\||Success=|_residual=|_Errors=|ErrorsFraction=|Solution Validates|Node\(s\) with error|CHECK' \
        | grep -v 'Scaled residual' | awk '{ out = ""; for (i = 1; i <= NF; i++) if ($i !~ /^[0-9.]+$/ || $i !~ /\./) out = out " " $i; print out }'
}
if command -v hpcc >/dev/null; then
    d=$tmp/hpcc
    mkdir -p "$d/input" && cp "$top_srcdir/tests/clients/hpccinf.txt" "$d/input/"
    run_client hpcc 4 "$d" "$(command -v hpcc)"
    cp "$d/plain/hpccoutf.txt" "$d/plain.hpcc" 2>/dev/null; cp "$d/traced/hpccoutf.txt" "$d/traced.hpcc" 2>/dev/null
    touch "$d/plain.hpcc" "$d/traced.hpcc"
    same_results hpcc "$d/plain.hpcc" "$d/traced.hpcc" "" hpcc_results
    independent hpcc "$d/merged" "" ""
else
    for i in $(seq 10); do skip "hpcc not installed"; done
fi

# BLACS testers (C and Fortran interfaces: point-to-point, broadcasts and
# combines over row, column and all scopes of several process grids) and
# the ScaLAPACK LU and QR testers; result lines: test counts and CHECK
# columns (times and rates dropped).
scalapack_results() {
    grep -E 'TESTS|FAILURES|tests completed|Finished|^(WALL|CPU) ' \
        | awk '{ out = ""; for (i = 1; i <= NF; i++) if ($i !~ /\./) out = out " " $i; print out }'
}
tests_dir=$(ls -d /usr/lib/*/scalapack/openmpi-tests 2>/dev/null | head -1)
for prog in xCbtest xFbtest xdlu xdqr; do
    if [ -n "$tests_dir" ] && [ -x "$tests_dir/$prog" ]; then
        d=$tmp/$prog
        mkdir -p "$d/input"
        case $prog in
        x?btest) cp "$top_srcdir"/tests/clients/blacs/*.dat "$d/input/" ;;
        *) cp "$top_srcdir"/tests/clients/scalapack/*.dat "$d/input/" ;;
        esac
        run_client "$prog" 4 "$d" "$tests_dir/$prog"
        same_results "ScaLAPACK $prog" "$d/plain.out" "$d/traced.out" "" scalapack_results
        independent "ScaLAPACK $prog" "$d/merged"
    else
        for i in $(seq 10); do skip "scalapack-mpi-test (Open MPI build) not installed"; done
    fi
done
finish
