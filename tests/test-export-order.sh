#!/bin/bash
# The events of a merged archive in time order, in memory that does not
# grow with the number of locations (format/mtorder.c): OTF2's global
# reader held 256 KiB per location (2.6 GB to export 10,000 ranks).
#   - tests/checkers/mtorder_check.c: mt_read_events, with every location read at
#     once and with one at a time (the events through a file), against
#     every location read alone: (time, location) order, each location's
#     events field for field, a collective's sparse sources included, the
#     same sequence both ways, and a second pass;
#   - both exports byte for byte the same either way;
#   - 600 locations (beyond the 256 read at once by default): the export's
#     peak RSS stays small, well below what reading them all at once takes;
#   - bad options and a file that cannot be written: one line, no output.
. "$top_srcdir/tests/lib.sh"
plan 35
GEN="$top_builddir/synctrace-gen"
CHECK="$top_builddir/tests/mtorder_check"
ST="$SYNCTRACE_BIN"
tmp=$(scratch)
spill=$(scratch)

# same_exports OUT LABEL: chrome and html, read at once and one at a time (2 checks)
same_exports() {
    local out=$1 label=$2 f
    for f in chrome html; do
        "$ST" export "$out" --format "$f" -o "$tmp/a.$f" 2>/dev/null &&
            "$ST" export "$out" --format "$f" -o "$tmp/b.$f" --memory 0 --spill-dir "$spill" 2>/dev/null &&
            cmp -s "$tmp/a.$f" "$tmp/b.$f" && [ "$(ls -A "$spill" | wc -l)" = 0 ]
        ok $? "$label: export --format $f the same byte for byte with --memory 0 (the events through a file)"
    done
}

# 1. Generated, with true times (has_truth) and several ranks per clock.
"$GEN" "$tmp/g" --ranks 6 --pattern stencil2d --iterations 60 --ranks-per-node 2 --seed 3 >/dev/null &&
    "$ST" merge "$tmp/g" -o "$tmp/g.out" --no-causal >/dev/null 2>&1
ok $? "a generated 6-rank trace merged"
"$CHECK" "$tmp/g.out/traces.otf2" "$spill" >"$tmp/g.check" 2>&1
tap_from_checker "generated: " "$tmp/g.check"
same_exports "$tmp/g.out" "generated"

# 2. Traced: zero-byte and sparse collectives (a sparse member carries its
#    sources in attributes) and threads (several locations per rank).
if prog=$(build_mpi mpi_zerobytes "$tmp") &&
    run_traced "$tmp/n" 4 "$prog" >/dev/null 2>&1 && "$ST" merge "$tmp/n" -o "$tmp/n.out" --no-causal >/dev/null 2>&1; then
    ok 0 "mpi_zerobytes traced on 4 ranks and merged"
    "$CHECK" "$tmp/n.out/traces.otf2" "$spill" >"$tmp/n.check" 2>&1
    tap_from_checker "zerobytes: " "$tmp/n.check"
    grep -q "both ways.* [1-9][0-9]* with sources" "$tmp/n.check"
    ok $? "zerobytes: the sparse members' sources were delivered ($(grep -o '[0-9]* with sources' "$tmp/n.check"))"
    same_exports "$tmp/n.out" "zerobytes"
else
    ok 1 "mpi_zerobytes traced on 4 ranks and merged"
    for i in $(seq 8); do skip "mpi_zerobytes not traced"; done
fi
if mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" -lm &&
    run_traced "$tmp/t" 3 "$tmp/mpi_threads" 20 >/dev/null 2>&1 &&
    "$ST" merge "$tmp/t" -o "$tmp/t.out" --no-causal >/dev/null 2>&1; then
    ok 0 "mpi_threads traced on 3 ranks and merged"
    "$CHECK" "$tmp/t.out/traces.otf2" "$spill" >"$tmp/t.check" 2>&1
    tap_from_checker "threads: " "$tmp/t.check"
    same_exports "$tmp/t.out" "threads"
else
    ok 1 "mpi_threads traced on 3 ranks and merged"
    for i in $(seq 7); do skip "mpi_threads not traced"; done
fi

# 3. 600 locations: beyond the 256 read at once by default, so the export
#    goes through a file; its peak RSS against --memory 1000 (all at once,
#    as OTF2's global reader did), the outputs the same.
"$GEN" "$tmp/w" --ranks 600 --pattern ring --iterations 20 --no-true-time >/dev/null &&
    "$ST" merge "$tmp/w" -o "$tmp/w.out" --no-causal >/dev/null 2>&1
ok $? "a generated 600-rank trace merged"
/usr/bin/time -f '%M' -o "$tmp/rss.file" "$ST" export "$tmp/w.out" --format chrome -o "$tmp/w1.json" 2>/dev/null
rc1=$?
/usr/bin/time -f '%M' -o "$tmp/rss.all" "$ST" export "$tmp/w.out" --format chrome -o "$tmp/w2.json" --memory 1000 \
    2>/dev/null
rc2=$?
rss_file=$(tail -1 "$tmp/rss.file") rss_all=$(tail -1 "$tmp/rss.all")
[ $rc1 = 0 ] && [ $rc2 = 0 ] && cmp -s "$tmp/w1.json" "$tmp/w2.json"
ok $? "600 locations: the same JSON through a file (default) and all read at once (--memory 1000)"
[ "$rss_file" -lt 65536 ] && [ $((rss_file * 2)) -lt "$rss_all" ]
ok $? "600 locations: peak RSS $((rss_file / 1024)) MB through a file, $((rss_all / 1024)) MB all at once (at most 64, and half)"
[ "$(ls -A "$tmp" | grep -c -e 'tmp-' -e 'synctrace-order')" = 0 ]
ok $? "600 locations: nothing left beside the output (the file has no name)"

# ... and within the files a process may open: 600 readers asked for
# under a limit of 300 open files, the same JSON (the rest through the file).
(ulimit -n 300; exec "$ST" export "$tmp/w.out" --format chrome -o "$tmp/w3.json" --memory 1000 2>/dev/null) &&
    cmp -s "$tmp/w1.json" "$tmp/w3.json"
ok $? "600 locations under ulimit -n 300: the same JSON (as many read at once as files may be opened)"

# 4. Bad input: one line, exit 2, nothing written.
"$ST" export "$tmp/g.out" --format chrome -o "$tmp/bad.json" --memory lots >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && grep -q "memory" "$tmp/bad.err" && [ ! -e "$tmp/bad.json" ]
ok $? "--memory lots: exit $rc, one line: $(head -1 "$tmp/bad.err")"
"$ST" export "$tmp/g.out" --format chrome -o "$tmp/bad.json" --spill-dir "$tmp/none" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && grep -q "$tmp/none" "$tmp/bad.err" && [ ! -e "$tmp/bad.json" ]
ok $? "--spill-dir missing: exit $rc, one line naming it: $(head -1 "$tmp/bad.err")"
# A location defined twice (the fuzzer's finding: OTF2 keeps one event
# reader per location, so its twin read through a freed one and crashed):
# location 3's definition made location 2's, in the global definitions.
cp -r "$tmp/g.out" "$tmp/dup.out"
"${PYTHON3:-python3}" - "$tmp/dup.out/traces.def" <<'EOF2'
import re, sys
d = bytearray(open(sys.argv[1], 'rb').read())
# a Location record: type 14, its length, the id compressed (1 byte, 3)
at = [m.start() for m in re.finditer(re.escape(bytes([14])) + b'.' + re.escape(bytes([1, 3])), bytes(d), re.S)]
if len(at) != 1:
    sys.exit('location 3 found %d times' % len(at))
d[at[0] + 3] = 2
open(sys.argv[1], 'wb').write(d)
EOF2
dup_ok=$?
for mem in 64 0; do
    "$ST" export "$tmp/dup.out" --format chrome -o "$tmp/dup.json" --memory $mem >/dev/null 2>"$tmp/dup.err"
    rc=$?
    [ $dup_ok = 0 ] && [ $rc = 1 ] && [ "$(wc -l <"$tmp/dup.err")" = 1 ] &&
        grep -q "location 2 is defined twice" "$tmp/dup.err" && [ ! -e "$tmp/dup.json" ]
    ok $? "a location defined twice, --memory $mem: exit $rc, one line: $(head -1 "$tmp/dup.err")"
done
# The file cannot be written (a file-size limit, 64 KB: the 600 ranks'
# events take more): one line naming the directory, exit 1, no output.
full=$(scratch)
(ulimit -f 64; exec "$ST" export "$tmp/w.out" --format chrome -o "$tmp/full.json" --spill-dir "$full") \
    >/dev/null 2>"$tmp/full.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/full.err")" = 1 ] &&
    grep -q "events put in time order set aside in $full: write: File too large" "$tmp/full.err" &&
    [ ! -e "$tmp/full.json" ] && [ "$(ls -A "$tmp" | grep -c 'full.json')" = 0 ] && [ "$(ls -A "$full" | wc -l)" = 0 ]
ok $? "a file over the size limit: exit $rc, one line: $(head -1 "$tmp/full.err")"
finish
