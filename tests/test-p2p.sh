#!/bin/bash
# test-p2p.sh — every point-to-point variant (tests/mpi_p2p.c) traced with 2
# and with 4 ranks, and with 4 ranks on skewed clocks (every rank its own
# clock domain, so the trace also holds the tracer's sync messages, which
# the checks of the program's messages must leave out).
# tests/trace_check.py checks the events of each variant (peer world rank,
# local rank, tag, bytes, communicator, region of the post and of the
# completion), FIFO matching of all messages, request completion, region
# nesting and timestamps; and the program's output must not change under
# the tracer.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"

tmp=$(scratch)
# Map the checker's "ok - X" / "not ok - X" / "# X" lines onto TAP.
tap_from_checker() {
    local line
    while IFS= read -r line; do
        case $line in
        "ok - "*) ok 0 "$1${line#ok - }" ;;
        "not ok - "*) ok 1 "$1${line#not ok - }" ;;
        *) echo "$line" ;;
        esac
    done <"$2"
}

if prog=$(build_mpi mpi_p2p "$tmp"); then ok 0 "build tests/mpi_p2p.c"; else ok 1 "build tests/mpi_p2p.c"; fi

# run NAME NP [ENV=VALUE...]: untraced and traced (with the settings given)
run() {
    local name=$1 np=$2 rc f
    shift 2
    f=$tmp/${name//[^a-z0-9]/_}
    if [ ! -x "$tmp/mpi_p2p" ]; then
        skip "$name: no test program"
        return
    fi
    run_plain "$np" "$prog" >"$f.plain" 2>"$f.plain.err"
    ok $? "$name: untraced run succeeds"
    (
        [ $# -eq 0 ] || export "$@"
        run_traced "$f.trace" "$np" "$prog"
    ) >"$f.out" 2>"$f.err"
    rc=$?
    ok $rc "$name: traced run succeeds"
    [ $rc -eq 0 ] || sed 's/^/# /' "$f.err" | head -20
    # OTF2 rejects (drops) an event stamped before its predecessor and says
    # so on stderr; the tracer itself is silent unless SYNCTRACE_VERBOSE.
    ! grep -qE '\[OTF2\]|synctrace' "$f.err"
    ok $? "$name: no OTF2 or tracer messages on stderr"
    cmp -s "$f.plain" "$f.out" && [ -s "$f.plain" ]
    ok $? "$name: program output identical with and without the tracer"
    "$SYNCTRACE_BIN" dump "$f.trace" >"$f.dump" 2>"$f.dump.err"
    ok $? "$name: synctrace dump reads the trace"
    "$PYTHON3" "$top_srcdir/tests/trace_check.py" p2p "$f.dump" "$np" >"$f.check" 2>&1
    rc=$?
    tap_from_checker "$name: " "$f.check"
    ok $rc "$name: checker ran to the end"
}

run np=2 2
run np=4 4
run "np=4 skewed clocks" 4 SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20
n=$(grep -c " SEND .*comm=synctrace sync" "$tmp/np_4_skewed_clocks.dump" 2>/dev/null)
[ "${n:-0}" -gt 0 ]
ok $? "np=4 skewed clocks: the trace holds sync messages to leave out (${n:-0} sends)"

plan "$_tap_n"
finish
