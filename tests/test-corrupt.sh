#!/bin/bash
# test-corrupt.sh — every corrupted byte of a closed raw trace is reported.
# Seeded corruption (tests/corrupt_bytes.py, fixed seeds 1..40): 1 to 4
# bytes changed at random offsets of one random file of a closed trace
# (event files, definitions, anchors, run.meta, the checksum files); each
# case must give exit status non-zero, one line naming the changed file, and
# no output directory, from `synctrace merge` and from `synctrace dump`.
. "$top_srcdir/tests/lib.sh"
CASES=40
plan 9
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
    what=$("$py" "$top_srcdir/tests/corrupt_bytes.py" "$src" "$d" "$seed" $file) || return 1
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
kinds=$(for seed in $(seq 1 $CASES); do "$py" "$top_srcdir/tests/corrupt_bytes.py" "$tmp/raw" "$tmp/k" "$seed" | sed -n 1p; rm -rf "$tmp/k"; done \
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
for f in rank-000002.sum run.meta rank-000001.otf2 rank-000003.def rank-000000/0.evt rank-000002/2.def; do
    for seed in 101 102 103; do
        corrupt_case merge "$tmp/raw" "$seed" "$f" || missed=$((missed + 1))
    done
done
show_missed
ok $([ "$missed" -eq 0 ]; echo $?) "each of checksum file, run.meta, anchor, definitions, event file, local definitions corrupted alone (3 seeds each): reported ($missed missed)"

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
finish
