#!/bin/bash
# test-p2p.sh — every point-to-point variant (tests/mpi_p2p.c) traced with 2
# and with 4 ranks; tests/trace_check.py checks the events of each variant
# (peer world rank, local rank, tag, bytes, communicator, region of the post
# and of the completion), FIFO matching of all messages, request
# completion, region nesting and timestamps; and the program's output must
# not change under the tracer.
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

for np in 2 4; do
    if [ ! -x "$tmp/mpi_p2p" ]; then
        skip "np=$np: no test program"
        continue
    fi
    run_plain "$np" "$prog" >"$tmp/plain$np.out" 2>"$tmp/plain$np.err"
    ok $? "np=$np: untraced run succeeds"
    run_traced "$tmp/trace$np" "$np" "$prog" >"$tmp/traced$np.out" 2>"$tmp/traced$np.err"
    rc=$?
    ok $rc "np=$np: traced run succeeds"
    [ $rc -eq 0 ] || sed 's/^/# /' "$tmp/traced$np.err" | head -20
    cmp -s "$tmp/plain$np.out" "$tmp/traced$np.out" && [ -s "$tmp/plain$np.out" ]
    ok $? "np=$np: program output identical with and without the tracer"
    "$SYNCTRACE_BIN" dump "$tmp/trace$np" >"$tmp/dump$np.txt" 2>"$tmp/dump$np.err"
    ok $? "np=$np: synctrace dump reads the trace"
    "$PYTHON3" "$top_srcdir/tests/trace_check.py" p2p "$tmp/dump$np.txt" "$np" >"$tmp/check$np.txt" 2>&1
    rc=$?
    tap_from_checker "np=$np: " "$tmp/check$np.txt"
    ok $rc "np=$np: checker ran to the end"
    # Keep the evidence when something failed.
    if grep -q '^not ok' "$tmp/check$np.txt" && [ -n "${KEEP_FAILED:-}" ]; then
        cp "$tmp/dump$np.txt" "$KEEP_FAILED/p2p-dump$np.txt" && diag "dump kept in $KEEP_FAILED/p2p-dump$np.txt"
    fi
done

plan "$_tap_n"
finish
