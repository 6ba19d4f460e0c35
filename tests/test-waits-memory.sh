#!/bin/bash
# synctrace waits in bounded memory (issue 36): the sends, receives and
# collective members go through external sorters within --memory, spilling
# beyond it, and the locations are read by --jobs threads. The same
# waits.json (but for the time taken and the bytes spilled) and the same
# waits-instances.bin whatever the budget and the threads (with --raw too), on generated
# traces of point-to-point (stencil2d, random with MPI_ANY_SOURCE) and
# collectives (tree: Reduce + Bcast); peak RSS that does not grow with the
# events under a small budget (measured 0.0 bytes per event from 0.5 M to
# 2.2 M events, 19.9 with everything held in memory, which the measure sees);
# no spill file left behind, and one line when the disk is full.
. "$top_srcdir/tests/lib.sh"
plan 20
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
ST="$top_builddir/synctrace"
tmp=$(scratch)

# gen NAME PATTERN ITERATIONS: a merged archive in $tmp/NAME
gen() {
    "$GEN" "$tmp/$1.raw" --ranks 8 --pattern "$2" --iterations "$3" --seed 3 >/dev/null &&
        "$ST" merge "$tmp/$1.raw" -o "$tmp/$1" --no-causal >/dev/null 2>"$tmp/$1.merge"
}
gen short stencil2d 2000 && gen long stencil2d 8000 && gen tree tree 1500 && gen random random 1500
ok $? "four archives generated and merged"

# same A B: the two waits.json alike but for seconds_analysis and spilled_bytes
same() {
    "$PYTHON3" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop("seconds_analysis", None)
    d.pop("spilled_bytes", None)
sys.exit(0 if a == b and a["waits"] else 1)
PY
}
spilled() { "$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))['spilled_bytes'])" "$1"; }

# waits_as NAME TAG OPTION...: waits --json on $tmp/NAME, its outputs kept as $tmp/NAME.TAG.*
waits_as() {
    local name=$1 tag=$2
    shift 2
    "$ST" waits "$tmp/$name" --json "$@" >"$tmp/$name.$tag.out" 2>&1 &&
        cp "$tmp/$name/waits.json" "$tmp/$name.$tag.json" &&
        cp "$tmp/$name/waits-instances.bin" "$tmp/$name.$tag.bin"
}

for name in short tree random; do
    waits_as $name ref --jobs 1
    ok $? "$name: waits --json --jobs 1 (the default 256 MB, nothing spilled: $(spilled "$tmp/$name.ref.json") bytes)"
    # 1 MB: every sorter at its least budget, the messages' and the collectives' runs merged from disk
    waits_as $name tiny --jobs 1 --memory 1 && same "$tmp/$name.ref.json" "$tmp/$name.tiny.json" &&
        cmp -s "$tmp/$name.ref.bin" "$tmp/$name.tiny.bin" && [ "$(spilled "$tmp/$name.tiny.json")" -gt 0 ]
    ok $? "$name: --memory 1 spills $(spilled "$tmp/$name.tiny.json") bytes and gives the same waits.json and instances"
    waits_as $name two --jobs 2 && same "$tmp/$name.ref.json" "$tmp/$name.two.json" &&
        cmp -s "$tmp/$name.ref.bin" "$tmp/$name.two.bin" &&
        waits_as $name three --jobs 3 --memory 1 && same "$tmp/$name.ref.json" "$tmp/$name.three.json" &&
        cmp -s "$tmp/$name.ref.bin" "$tmp/$name.three.bin"
    ok $? "$name: --jobs 2, and --jobs 3 with --memory 1, give the same waits.json and instances"
done

# --raw: the records carry the raw times too (their sorted records are longer)
waits_as short rawref --jobs 1 --raw && waits_as short rawtiny --jobs 2 --memory 1 --raw &&
    same "$tmp/short.rawref.json" "$tmp/short.rawtiny.json" && cmp -s "$tmp/short.rawref.bin" "$tmp/short.rawtiny.bin" &&
    grep -q '"raw_seconds": [0-9]' "$tmp/short.rawtiny.json"
ok $? "short: --raw with --memory 1 --jobs 2 gives the same as with the defaults and --jobs 1"

# threads of one rank (MPI_THREAD_MULTIPLE, tests/mpi/mpi_threads.c): records
# equal in their keys (equal event indices on two locations of a rank) are
# put in order by their other fields, so they too come out alike
mpicc -std=c11 -D_GNU_SOURCE -O1 -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" \
    2>"$tmp/build.err" &&
    run_traced "$tmp/threads.raw" 2 "$tmp/mpi_threads" 200 >"$tmp/threads.run" 2>&1 &&
    "$ST" merge "$tmp/threads.raw" -o "$tmp/threads" --no-causal >/dev/null 2>&1
ok $? "a traced run of 2 ranks of 4 threads, merged"
waits_as threads ref --jobs 1 && waits_as threads tiny --jobs 3 --memory 1 &&
    same "$tmp/threads.ref.json" "$tmp/threads.tiny.json" && cmp -s "$tmp/threads.ref.bin" "$tmp/threads.tiny.bin"
ok $? "threads: --jobs 3 --memory 1 gives the same as --jobs 1"

# peak KB of waits on $1 with --memory $2 (2 threads)
peak() {
    /usr/bin/time -f '%M' -o "$tmp/time" "$ST" waits "$1" --json --memory "$2" --jobs 2 >/dev/null 2>&1 ||
        { echo 0; return; }
    tail -1 "$tmp/time"
}
events() { "$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))['events'])" "$1/waits.json"; }
# growth MB: sets a, b (peak KB on short, long), ea, eb (events), g (bytes per event added)
growth() {
    a=$(peak "$tmp/short" "$1"); ea=$(events "$tmp/short")
    b=$(peak "$tmp/long" "$1"); eb=$(events "$tmp/long")
    g=$(awk -v a="$a" -v b="$b" -v ea="$ea" -v eb="$eb" 'BEGIN { printf "%.1f", (b - a) * 1024 / (eb - ea) }')
}
growth 4
awk -v g="$g" -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b > 0 && g <= 2) }'
ok $? "--memory 4: peak RSS $a -> $b KB for $ea -> $eb events, $g bytes per event (at most 2)"
growth 1000
awk -v g="$g" -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b > 0 && g > 10) }'
ok $? "--memory 1000, all held: $a -> $b KB, $g bytes per event (more than 10: the measure sees it)"

# the spill files have no name: nothing is left in --spill-dir
mkdir "$tmp/spill"
"$ST" waits "$tmp/long" --memory 1 --spill-dir "$tmp/spill" >"$tmp/sp.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -z "$(ls -A "$tmp/spill")" ]
ok $? "--memory 1 --spill-dir: exit $rc, nothing left in the directory"

# a full disk, as a file-size limit: one line naming the spill directory, no waits.json
rm -f "$tmp/long/waits.json"
(ulimit -f 1000; "$ST" waits "$tmp/long" --json --memory 1 --spill-dir "$tmp/spill" >/dev/null 2>"$tmp/full.err")
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/full.err")" -eq 1 ] && grep -q "$tmp/spill" "$tmp/full.err" &&
    [ ! -e "$tmp/long/waits.json" ] && ! ls "$tmp/long"/waits*.tmp-* >/dev/null 2>&1
ok $? "a full disk: exit $rc, one line ($(cat "$tmp/full.err")), no waits.json"

"$ST" waits "$tmp/long" --spill-dir "$tmp/nowhere" >"$tmp/e1" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] && grep -q nowhere "$tmp/e1"
ok $? "a missing --spill-dir: exit $rc, one line ($(cat "$tmp/e1"))"
"$ST" waits "$tmp/long" --memory 0 >"$tmp/e2" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e2")" -eq 1 ]
ok $? "--memory 0: exit $rc, one line ($(cat "$tmp/e2"))"
"$ST" waits "$tmp/long" --jobs x >"$tmp/e3" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e3")" -eq 1 ]
ok $? "--jobs x: exit $rc, one line ($(cat "$tmp/e3"))"
finish
