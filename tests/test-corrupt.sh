#!/bin/bash
# test-corrupt.sh — every corrupted byte of a closed raw trace is reported.
# Seeded corruption (tests/checkers/corrupt_bytes.py, fixed seeds 1..40): 1 to 4
# bytes changed at random offsets of one random file of a closed trace
# (event files, definitions, anchors, run.meta, the checksum files); each
# case must give exit status non-zero, one line naming the changed file, and
# no output directory, from `synctrace merge` and from `synctrace dump`.
# A rank killed before closing its archive has no checksum file: its
# journal and event file, corrupted the same way, must never crash, hang or
# exhaust memory (it merges, or one line says what is wrong); so must the
# membership file of a rank that closed without writing its checksum file.
. "$top_srcdir/tests/lib.sh"
CASES=40
plan 12
tmp=$(scratch)
py=${PYTHON3:-python3}
stencil="$top_builddir/examples/stencil"

SYNCTRACE_SKEW=seed=5,offset_us=500,drift_ppm=20 run_traced "$tmp/raw" 4 "$stencil" -i 50 >/dev/null 2>&1
[ -f "$tmp/raw/rank-000000.sum" ] && [ -f "$tmp/raw/rank-000003.sum" ] && tail -n 1 "$tmp/raw/run.meta" | grep -qE "^checksum xxh64 [0-9a-f]{16}$"
ok $? "each rank wrote its checksum file and run.meta ends with its checksum"
"$SYNCTRACE_BIN" merge "$tmp/raw" -o "$tmp/clean.out" >/dev/null 2>"$tmp/clean.err"
ok $? "the intact trace merges ($(head -1 "$tmp/clean.err"))"

# corrupt_case TOOL SRC SEED [FILE]: 0 when TOOL reports the change as it must.
corrupt_case() {
    local tool=$1 src=$2 seed=$3 file=${4:-} d="$tmp/c$seed" out="$tmp/c$seed.out" rc what
    rm -rf "$d" "$out"
    what=$("$py" "$top_srcdir/tests/checkers/corrupt_bytes.py" "$src" "$d" "$seed" $file) || return 1
    local rel=${what%%$'\n'*}
    if [ "$tool" = merge ]; then
        "$SYNCTRACE_BIN" merge "$d" -o "$out" >/dev/null 2>"$d.err"
    else
        "$SYNCTRACE_BIN" dump "$d" >"$out.dump" 2>"$d.err"
    fi
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(wc -l <"$d.err")" -eq 1 ] && grep -qF "$d/$rel" "$d.err" && [ ! -e "$out" ]; then
        rm -rf "$d" "$d.err" "$out.dump"
        return 0
    fi
    echo "seed $seed: $tool, $rel bytes $(echo "$what" | tail -1): exit $rc: $(head -3 "$d.err" | tr '\n' '|')" >>"$tmp/missed"
    return 1
}

corrupt_all() {   # corrupt_all TOOL SRC: how many of the seeded cases went unreported
    local missed=0 seed
    for seed in $(seq 1 $CASES); do
        corrupt_case "$1" "$2" "$seed" || missed=$((missed + 1))
    done
    echo $missed
}

# Which files the seeds hit: every kind must be among them.
kinds=$(for seed in $(seq 1 $CASES); do "$py" "$top_srcdir/tests/checkers/corrupt_bytes.py" "$tmp/raw" "$tmp/k" "$seed" | sed -n 1p; rm -rf "$tmp/k"; done \
        | sed -E 's/rank-[0-9]+/R/; s/[0-9]+\.(evt|def)$/L.\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ',')
diag "files hit by the $CASES seeds: $kinds"

missed=$(corrupt_all merge "$tmp/raw")
show_missed() { [ -s "$tmp/missed" ] && sed 's/^/# /' "$tmp/missed" | head -5; rm -f "$tmp/missed"; }
show_missed
ok $([ "$missed" -eq 0 ]; echo $?) "merge: all $CASES seeded corruptions of a traced run reported: one line naming the file, exit non-zero, no output ($missed missed)"
missed=$(corrupt_all dump "$tmp/raw")
show_missed
ok $([ "$missed" -eq 0 ]; echo $?) "dump: all $CASES reported the same way ($missed missed)"

# A generated trace (synctrace-gen writes what the tracer writes).
"$top_builddir/synctrace-gen" "$tmp/gen" --ranks 6 --pattern stencil2d --iterations 30 --seed 2 >/dev/null 2>&1
missed=$(corrupt_all merge "$tmp/gen")
show_missed
ok $([ "$missed" -eq 0 ]; echo $?) "merge: all $CASES seeded corruptions of a generated trace reported ($missed missed)"

# Each file kind on its own: the checksum file only, run.meta, an anchor, an event file.
missed=0
for f in rank-000002.sum run.meta rank-000001.otf2 rank-000003.def rank-000003.members rank-000000/0.evt rank-000002/2.def; do
    for seed in 101 102 103; do
        corrupt_case merge "$tmp/raw" "$seed" "$f" || missed=$((missed + 1))
    done
done
show_missed
ok $([ "$missed" -eq 0 ]; echo $?) "each of checksum file, run.meta, anchor, definitions, membership file, event file, local definitions corrupted alone (3 seeds each): reported ($missed missed)"

# A file that was cut short, or added to a closed archive.
cp -r "$tmp/raw" "$tmp/cut" && truncate -s -1 "$tmp/cut/rank-000001/1.evt"
"$SYNCTRACE_BIN" merge "$tmp/cut" -o "$tmp/cut.out" >/dev/null 2>"$tmp/cut.err"
ok $([ $? -ne 0 ] && [ "$(wc -l <"$tmp/cut.err")" -eq 1 ] && grep -q "rank-000001/1.evt: corrupt: .* bytes, but rank-000001.sum says" "$tmp/cut.err" && [ ! -e "$tmp/cut.out" ]; echo $?) \
    "an event file one byte short: its size is named ($(cat "$tmp/cut.err"))"
cp -r "$tmp/raw" "$tmp/added" && cp "$tmp/raw/rank-000001/1.evt" "$tmp/added/rank-000001/7.evt"
"$SYNCTRACE_BIN" merge "$tmp/added" -o "$tmp/added.out" >/dev/null 2>"$tmp/added.err"
ok $([ $? -ne 0 ] && [ "$(wc -l <"$tmp/added.err")" -eq 1 ] && grep -q "rank-000001/7.evt: not in rank-000001.sum" "$tmp/added.err" && [ ! -e "$tmp/added.out" ]; echo $?) \
    "a file added to a closed archive is named ($(cat "$tmp/added.err"))"
cp -r "$tmp/raw" "$tmp/nosum" && rm "$tmp/nosum/rank-000002.sum"
"$SYNCTRACE_BIN" merge "$tmp/nosum" -o "$tmp/nosum.out" >/dev/null 2>"$tmp/nosum.err"
ok $? "a rank without its checksum file (killed while closing) is read by structure, and merges ($(head -1 "$tmp/nosum.err"))"
# Its membership file is then checked by structure alone (format/defs_read.c).
bad=0 merged=0 refused=0
for seed in $(seq 1 20); do
    d="$tmp/ms$seed"
    "$py" "$top_srcdir/tests/checkers/corrupt_bytes.py" "$tmp/nosum" "$d" "$seed" rank-000002.members >/dev/null
    (ulimit -v 4000000; timeout 60 "$SYNCTRACE_BIN" merge "$d" -o "$d.out" >/dev/null 2>"$d.err")
    rc=$?
    if [ $rc -eq 0 ]; then
        merged=$((merged + 1))
    elif [ $rc -lt 124 ] && [ "$(wc -l <"$d.err")" -eq 1 ] && grep -qF "rank-000002" "$d.err" && [ ! -e "$d.out" ]; then
        refused=$((refused + 1))
    else
        bad=$((bad + 1))
        diag "seed $seed: exit $rc: $(head -2 "$d.err" | tr '\n' '|')"
    fi
    rm -rf "$d" "$d.out" "$d.err"
done
ok $([ $bad -eq 0 ] && [ $refused -gt 0 ]; echo $?) "20 seeded corruptions of an unchecksummed rank's membership file: no crash, hang or runaway memory ($merged merged, $refused refused in one line naming the rank, $bad otherwise)"
# The unclosed archive of a rank killed with SIGKILL after some flushes (tests/mpi/mpi_kill9.c).
if kill9=$(build_mpi mpi_kill9 "$tmp"); then
    timeout -k 5 60 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$SYNCTRACE_LIB" \
        -x SYNCTRACE_DIR="$tmp/killed" -x SYNCTRACE_BUFFER_MB=1 "$kill9" >/dev/null 2>&1
fi
[ ! -e "$tmp/killed/rank-000002.sum" ] && [ -s "$tmp/killed/rank-000002.journal" ] && [ -s "$tmp/killed/rank-000002/2.evt" ]
ok $? "a rank killed after some flushes left a journal and events, no checksum file"
bad=0 merged=0 refused=0
for seed in $(seq 1 20); do
    for f in rank-000002.journal rank-000002/2.evt; do
        d="$tmp/u$seed"
        rm -rf "$d" "$d.out"
        "$py" "$top_srcdir/tests/checkers/corrupt_bytes.py" "$tmp/killed" "$d" "$seed" "$f" >/dev/null
        (ulimit -v 4000000; timeout 60 "$SYNCTRACE_BIN" merge "$d" -o "$d.out" >/dev/null 2>"$d.err")
        rc=$?
        if [ $rc -eq 0 ]; then
            merged=$((merged + 1))
        elif [ $rc -lt 124 ] && [ "$(wc -l <"$d.err")" -eq 1 ] && [ ! -e "$d.out" ]; then
            refused=$((refused + 1))
        else
            bad=$((bad + 1))
            diag "seed $seed, $f: exit $rc: $(head -2 "$d.err" | tr '\n' '|')"
        fi
        rm -rf "$d" "$d.out" "$d.err"
    done
done
ok $([ $bad -eq 0 ]; echo $?) "40 seeded corruptions of an unclosed rank's journal and event file: no crash, hang or runaway memory ($merged merged, $refused refused in one line, $bad otherwise)"
finish
