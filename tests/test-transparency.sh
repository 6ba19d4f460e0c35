#!/bin/bash
# test-transparency.sh — the tracer does not change what a program does:
# its stdout, stderr and exit status, the error classes of erroneous calls,
# non-MPI programs it is preloaded into; bad settings and an occupied trace
# directory leave the program running untraced with one clear message; the
# default trace directory name.
. "$top_srcdir/tests/lib.sh"
plan 44

tmp=$(scratch)
# Absolute paths: some runs below happen in other working directories.
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
SYNCTRACE_LIB=$(abspath "$SYNCTRACE_LIB")
SYNCTRACE_BIN=$(abspath "$SYNCTRACE_BIN")
NP_ARGS=(--allow-run-as-root --oversubscribe)
# Open MPI's own messages name the job and the process: compare without them.
normalize() { sed -E 's/\[\[[0-9]+,[0-9]+\],[0-9]+\]/[[J,1],R]/g; s/(PID|pid) [0-9]+/\1 N/g; s/\[[a-zA-Z0-9_.-]+:[0-9]+\]/[host:N]/g' "$1"; }
same_stderr() { [ "$(normalize "$1")" = "$(normalize "$2")" ]; }
archives() { ls "$1" 2>/dev/null | grep -c '^rank-[0-9]\{6\}\.otf2$'; }

stencil="$top_builddir/examples/stencil"
make -C "$top_builddir" examples/stencil >"$tmp/make.log" 2>&1 || { diag "make examples/stencil failed"; sed 's/^/# /' "$tmp/make.log" | tail -5; }
errors=$(build_mpi mpi_errors "$tmp") || errors=/nonexistent

# ---- (a) + (e): the example, 1 and 4 ranks
for np in 1 4; do
    run_plain $np "$stencil" >"$tmp/s$np.plain" 2>"$tmp/s$np.plain.err"
    rc_plain=$?
    run_traced "$tmp/s$np.trace" $np "$stencil" >"$tmp/s$np.traced" 2>"$tmp/s$np.traced.err"
    rc_traced=$?
    [ -s "$tmp/s$np.plain" ] && cmp -s "$tmp/s$np.plain" "$tmp/s$np.traced"
    ok $? "stencil, $np rank(s): stdout byte-identical with and without the tracer"
    [ $rc_plain -eq $rc_traced ] && [ $rc_plain -eq 0 ]
    ok $? "stencil, $np rank(s): same exit status ($rc_plain untraced, $rc_traced traced)"
    same_stderr "$tmp/s$np.plain.err" "$tmp/s$np.traced.err"
    ok $? "stencil, $np rank(s): the tracer adds nothing to stderr ($(wc -l <"$tmp/s$np.traced.err") lines traced)"
    [ "$(archives "$tmp/s$np.trace")" -eq $np ]
    ok $? "stencil, $np rank(s): the traced run did write $np rank archives"
done

# ---- (b): a non-zero exit code from main after MPI_Finalize
run_plain 2 "$errors" exit 3 >"$tmp/x.plain" 2>/dev/null
rc_plain=$?
run_traced "$tmp/x.trace" 2 "$errors" exit 3 >"$tmp/x.traced" 2>/dev/null
rc_traced=$?
[ $rc_plain -eq 3 ] && [ $rc_traced -eq $rc_plain ]
ok $? "return 3 after MPI_Finalize: same exit status ($rc_plain untraced, $rc_traced traced)"
cmp -s "$tmp/x.plain" "$tmp/x.traced" && [ "$(archives "$tmp/x.trace")" -eq 2 ]
ok $? "return 3 after MPI_Finalize: same stdout, and the trace is complete"

# ---- (c) + (e): erroneous calls with MPI_ERRORS_RETURN and with a handler of the program's
run_plain 4 "$errors" errors >"$tmp/e.plain" 2>"$tmp/e.plain.err"
rc_plain=$?
run_traced "$tmp/e.trace" 4 "$errors" errors >"$tmp/e.traced" 2>"$tmp/e.traced.err"
rc_traced=$?
[ "$(grep -c ' returns MPI_ERR_' "$tmp/e.plain")" -eq 30 ] && cmp -s "$tmp/e.plain" "$tmp/e.traced"
ok $? "erroneous calls return the same error classes traced and untraced, the program's handler is called as often"
if ! cmp -s "$tmp/e.plain" "$tmp/e.traced"; then diff "$tmp/e.plain" "$tmp/e.traced" | head -10 | sed 's/^/# /'; fi
[ $rc_plain -eq 0 ] && [ $rc_traced -eq 0 ] && grep -q '^carried on: sum of ranks 6$' "$tmp/e.traced" \
    && [ "$(archives "$tmp/e.trace")" -eq 4 ]
ok $? "after the errors the traced program carries on and finishes (exit $rc_traced), its trace complete"
same_stderr "$tmp/e.plain.err" "$tmp/e.traced.err"
ok $? "erroneous calls: the tracer adds nothing to stderr"

run_plain 4 "$errors" quiet >"$tmp/q.plain" 2>"$tmp/q.plain.err"
run_traced "$tmp/q.trace" 4 "$errors" quiet >"$tmp/q.traced" 2>"$tmp/q.traced.err"
[ -s "$tmp/q.plain" ] && cmp -s "$tmp/q.plain" "$tmp/q.traced" && [ "$(archives "$tmp/q.trace")" -eq 4 ]
ok $? "a quiet program: stdout identical traced and untraced"
[ ! -s "$tmp/q.plain.err" ] && [ ! -s "$tmp/q.traced.err" ]
ok $? "a quiet program: stderr empty with the tracer as without"

# ---- (d): preloaded into programs that are not MPI programs
mkdir -p "$tmp/nonmpi" && cd "$tmp/nonmpi" || exit 1
/bin/echo hello >"$tmp/d.plain" 2>"$tmp/d.plain.err"
rc_plain=$?
LD_PRELOAD="$SYNCTRACE_LIB" /bin/echo hello >"$tmp/d.traced" 2>"$tmp/d.traced.err"
rc_traced=$?
cmp -s "$tmp/d.plain" "$tmp/d.traced" && [ $rc_plain -eq $rc_traced ] && [ ! -s "$tmp/d.traced.err" ]
ok $? "LD_PRELOAD into /bin/echo hello: same stdout, exit status ($rc_traced) and empty stderr"
LD_PRELOAD="$SYNCTRACE_LIB" sh -c 'exit 5' >"$tmp/d5.traced" 2>&1
rc_traced=$?
[ $rc_traced -eq 5 ] && [ ! -s "$tmp/d5.traced" ]
ok $? "LD_PRELOAD into sh -c 'exit 5': exit status $rc_traced, no output"
[ -z "$(ls -A "$tmp/nonmpi")" ]
ok $? "a program that never calls MPI_Init gets no trace directory"
cd "$OLDPWD" || exit 1

# ---- (f): malformed settings: one message from rank 0, the program runs untraced
mkdir -p "$tmp/fcwd"
tagged() {   # tagged OUTPREFIX [VAR=VALUE]: the quiet program, 4 ranks, output tagged by rank
    local out=$1; shift
    (cd "$tmp/fcwd" && timeout 120 "$MPIRUN" "${NP_ARGS[@]}" --tag-output -np 4 \
        -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$tmp/f.trace" ${1:+-x "$1"} "$errors" quiet \
        >"$out.out" 2>"$out.err")
}
(cd "$tmp/fcwd" && timeout 120 "$MPIRUN" "${NP_ARGS[@]}" --tag-output -np 4 "$errors" quiet >"$tmp/f.plain.out" 2>/dev/null)
for setting in SYNCTRACE_CLOCK=foo SYNCTRACE_SKEW=seed=x SYNCTRACE_SYNC=sometimes \
    SYNCTRACE_SYNC_INTERVAL=-1 SYNCTRACE_BUFFER_MB=0 SYNCTRACE_VERBOSE=2; do
    var=${setting%%=*}
    rm -rf "$tmp/f.trace"
    tagged "$tmp/f" "$setting"
    rc=$?
    # exactly one stderr line, from rank 0, "synctrace: VAR...", and nothing else
    [ "$(wc -l <"$tmp/f.err")" -eq 1 ] && grep -q "^\[1,0\]<stderr>:synctrace: .*$var" "$tmp/f.err"
    ok $? "$setting: exactly one 'synctrace: ...' line naming $var on stderr, from rank 0"
    [ "$(wc -l <"$tmp/f.err")" -eq 1 ] || sed 's/^/# /' "$tmp/f.err" | head -5
    [ $rc -eq 0 ] && cmp -s "$tmp/f.plain.out" "$tmp/f.out"
    ok $? "$setting: stdout unchanged, exit status 0 ($rc)"
    [ ! -e "$tmp/f.trace" ] && [ -z "$(ls -A "$tmp/fcwd")" ]
    ok $? "$setting: no trace directory created"
done

# ---- (g): a trace directory that already holds a trace
run_traced "$tmp/old4" 4 "$errors" quiet >/dev/null 2>&1
sums() { (cd "$1" && find . -type f -o -type d | sort | while read -r f; do
    if [ -f "$f" ]; then echo "$(md5sum <"$f" | cut -c1-32) $f"; else echo "dir $f"; fi; done); }
sums "$tmp/old4" >"$tmp/old4.sum"
run_traced "$tmp/old4" 4 "$errors" quiet >"$tmp/g.out" 2>"$tmp/g.err"
rc=$?
[ "$(archives "$tmp/old4")" -eq 4 ] && [ $rc -eq 0 ] && cmp -s "$tmp/q.plain" "$tmp/g.out"
ok $? "SYNCTRACE_DIR holds a trace: the program runs as without the tracer (exit $rc, same stdout)"
grep -q '^synctrace: .*already holds a trace.*not traced' "$tmp/g.err" && ! grep -qv '^synctrace: ' "$tmp/g.err" \
    && [ "$(grep -c '^synctrace: ' "$tmp/g.err")" -eq 1 ]
ok $? "SYNCTRACE_DIR holds a trace: a clear message ($(grep -c '^synctrace: ' "$tmp/g.err") line(s): $(head -1 "$tmp/g.err" | cut -c1-100)...)"
sums "$tmp/old4" | cmp -s - "$tmp/old4.sum"
ok $? "SYNCTRACE_DIR holds a trace: the old trace is untouched (checksums, no file added)"
# The same when the old trace comes from a smaller job: ranks that find no
# archive of their own must not add theirs to the old trace.
run_traced "$tmp/old2" 2 "$errors" quiet >/dev/null 2>&1
sums "$tmp/old2" >"$tmp/old2.sum"
run_traced "$tmp/old2" 4 "$errors" quiet >"$tmp/g2.out" 2>"$tmp/g2.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/q.plain" "$tmp/g2.out" && grep -q '^synctrace: .*not traced' "$tmp/g2.err"
ok $? "SYNCTRACE_DIR holds a 2-rank trace, 4-rank job: runs untraced with a message (exit $rc)"
sums "$tmp/old2" | cmp -s - "$tmp/old2.sum"
ok $? "SYNCTRACE_DIR holds a 2-rank trace, 4-rank job: the old trace is untouched"
sums "$tmp/old2" | diff "$tmp/old2.sum" - | grep '^>' | head -3 | sed 's/^/# added: /'

# ---- (h): the default directory name
mkdir -p "$tmp/hcwd"
day_before=$(date +%Y%m%d)
(cd "$tmp/hcwd" && env -u SYNCTRACE_DIR timeout 120 "$MPIRUN" "${NP_ARGS[@]}" -np 4 -x LD_PRELOAD="$SYNCTRACE_LIB" \
    "$errors" quiet >"$tmp/h.out" 2>"$tmp/h.err")
rc=$?
day_after=$(date +%Y%m%d)
entries=$(ls -A "$tmp/hcwd")
d=$tmp/hcwd/$entries
[ $rc -eq 0 ] && [ "$(echo "$entries" | wc -w)" -eq 1 ] && [[ $entries =~ ^synctrace-[0-9]{8}-[0-9]{6}-[0-9]+$ ]]
ok $? "SYNCTRACE_DIR unset: exactly one new directory synctrace-YYYYMMDD-HHMMSS-PID in the working directory ($entries)"
stamp=${entries#synctrace-}
{ [ "${stamp:0:8}" = "$day_before" ] || [ "${stamp:0:8}" = "$day_after" ]; } \
    && grep -qx "run_id $stamp" "$d/run.meta" 2>/dev/null
ok $? "SYNCTRACE_DIR unset: the name is today's date and the run id of run.meta"
[ "$(archives "$d")" -eq 4 ] && "$SYNCTRACE_BIN" dump "$d" >/dev/null 2>&1
ok $? "SYNCTRACE_DIR unset: the directory holds the 4 rank archives, readable"
finish
