#!/bin/bash
# The causal index (self-organizing hierarchical cluster timestamps) against
# a brute-force oracle (tests/unit/unit_causal.c: full vector clocks relaxed
# over the explicit event graph) on generator traces of every pattern and on
# traced MPI programs (point-to-point with the tracer's sync rounds,
# collectives of every kind): hundreds of thousands of random pairs per
# trace in ten index configurations (two-level, hierarchical, other merge
# policies), every vector entry asked, the file read back, damage refused.
# Then through the tools: synctrace merge writes causal.idx and the size
# sweep; `synctrace query` answers as the oracle does, R:I naming the
# merged archive's events; a missing, stale or corrupt index and bad input
# get one-line errors; the installed library compiles and links through
# pkg-config.
. "$top_srcdir/tests/lib.sh"
GEN_PATTERNS="stencil2d stencil3d ring tree alltoall random"
MPI_PROGRAMS="mpi_p2p mpi_coll"
ORACLE_LINES=9
plan $(( (6 + 3) * (ORACLE_LINES + 1) + 25 ))
: "${PYTHON3:=python3}"
PY_OTF2=/usr/bin/python3   # Debian's python3, the one python3-otf2 is installed for
GEN="$top_builddir/synctrace-gen"
ORACLE="$top_builddir/tests/unit_causal"
tmp=$(scratch)
PAIRS=${CAUSAL_PAIRS:-100000}

oracle_on() {   # oracle_on RAW LABEL
    "$ORACLE" "$1" "$PAIRS" >"$1.oracle" 2>&1
    local rc=$? lines
    lines=$(grep -c '^\(not \)\?ok - ' "$1.oracle")
    ok $([ "$lines" -eq $ORACLE_LINES ]; echo $?) "$2: the oracle ran every check (status $rc, $lines of $ORACLE_LINES lines)$( [ "$lines" -ne $ORACLE_LINES ] && tail -2 "$1.oracle" | tr '\n' ' ')"
    grep '^# [0-9]' "$1.oracle"
    tap_from_checker "$2: " "$1.oracle"
}

# ---------------------------------------------------------------- generator traces
for p in $GEN_PATTERNS; do
    d="$tmp/gen-$p"
    "$GEN" "$d" --ranks 16 --pattern "$p" --iterations 12 --sync-rounds 4 --ranks-per-node 2 >/dev/null 2>"$d.err" \
        || echo "# $(cat "$d.err")"
    oracle_on "$d" "$p, 16 ranks"
done

# ---------------------------------------------------------------- traced MPI programs
for prog in $MPI_PROGRAMS; do
    exe=$(build_mpi "$prog" "$tmp") || exe=/nonexistent
    SYNCTRACE_SKEW=seed=5,offset_us=500,drift_ppm=20 run_traced "$tmp/raw-$prog" 4 "$exe" >/dev/null 2>"$tmp/$prog.err"
    oracle_on "$tmp/raw-$prog" "$prog, 4 ranks traced"
done
SYNCTRACE_SKEW=seed=7,offset_us=800,drift_ppm=40 \
    run_traced "$tmp/raw-stencil" 4 "$top_builddir/examples/stencil" -i 150 >/dev/null 2>&1
oracle_on "$tmp/raw-stencil" "examples/stencil, 4 ranks traced"

# ---------------------------------------------------------------- through merge and query
raw="$tmp/raw-mpi_p2p"
out="$tmp/p2p.out"
"$SYNCTRACE_BIN" merge "$raw" -o "$out" >/dev/null 2>"$tmp/merge.err"
ok $? "merge of the traced mpi_p2p run writes the causal index$(head -1 "$tmp/merge.err")"
"$PYTHON3" - "$out" <<'PY' >"$tmp/report.check"
import json, sys, xml.dom.minidom
d = sys.argv[1]
r = json.load(open(d + '/report.json'))['causal_index']
bad = []
if r.get('built') is not True: bad.append('not built')
if not (0 < r['entries_per_event'] <= json.load(open(d + '/report.json'))['ranks']): bad.append('entries_per_event')
rows = open(d + '/cluster_sizes.csv').read().splitlines()
if rows[0] != 'max_cluster_size,self_organizing,contiguous,fidge_mattern': bad.append('csv header ' + rows[0])
if [int(x.split(',')[0]) for x in rows[1:]] != list(range(1, 51)): bad.append('csv sizes')
if len(r['sweep']['rows']) != 50: bad.append('json sweep rows')
svg = xml.dom.minidom.parse(d + '/cluster_sizes.svg')
if len(svg.getElementsByTagName('polyline')) != 2: bad.append('svg lines')
txt = open(d + '/report.txt').read()
if 'causal index  clusters' not in txt or 'self-organizing' not in txt: bad.append('report.txt')
print(' '.join(bad))
PY
fail=$(cat "$tmp/report.check")
ok $([ -z "$fail" ] && grep -q '"causal_index"' "$out/report.json"; echo $?) "report.json, report.txt, cluster_sizes.csv (50 sizes, exact header) and a well-formed cluster_sizes.svg${fail:+ — FAILED: $fail}"

# R:I names the I-th event of rank R's location in the merged archive: every
# matched message's send and receive, every collective's entry and exit,
# sit where the matcher found them in the raw trace.
"$ORACLE" --refs "$raw" >"$tmp/refs"
"$PY_OTF2" - "$out/traces.otf2" "$tmp/refs" <<'PY' >"$tmp/refs.check"
import collections, sys, otf2
kinds = collections.defaultdict(list)
with otf2.reader.open(sys.argv[1]) as t:
    for loc, ev in t.events:
        kinds[loc._ref].append(type(ev).__name__)
want = {'send': ('MpiSend', 'MpiIsend'), 'recv': ('MpiRecv', 'MpiIrecv'),
        'enter': ('MpiCollectiveBegin', 'NonBlockingCollectiveRequest'),
        'exit': ('MpiCollectiveEnd', 'NonBlockingCollectiveComplete')}
n = bad = 0
for line in open(sys.argv[2]):
    k, r, i = line.split()
    n += 1
    got = kinds[int(r)][int(i)] if int(i) < len(kinds[int(r)]) else None
    if got not in want[k]:
        bad += 1
        if bad < 4: print('%s %s:%s is %s in the merged archive' % (k, r, i, got))
print('checked %d %d' % (n, bad))
PY
n=$(awk '/^checked/ {print $2}' "$tmp/refs.check")
b=$(awk '/^checked/ {print $3}' "$tmp/refs.check")
ok $([ "${n:-0}" -gt 100 ] && [ "$b" = 0 ]; echo $?) "R:I: all ${n:-0} matched events are at the same index in the merged archive ($(grep -v ^checked "$tmp/refs.check" | head -2 | tr '\n' ' '))"

# synctrace query --batch answers what the oracle answers, pair for pair.
"$SYNCTRACE_BIN" query "$out" --batch </dev/null >/dev/null
ok $? "query --batch with no pairs succeeds"
"$PY_OTF2" - "$out/traces.otf2" >"$tmp/pairs" <<'PY'
import collections, random, sys, otf2
n = collections.Counter()
with otf2.reader.open(sys.argv[1]) as t:
    for loc, ev in t.events:
        n[loc._ref] += 1
random.seed(3)
ranks = sorted(n)
for k in range(30000):
    b = random.choice(ranks); ib = random.randrange(n[b])
    a = b if k % 5 == 0 else random.choice(ranks)
    ia = ib if k % 10 == 0 else random.randrange(n[a])
    print('%d:%d %d:%d' % (a, ia, b, ib))
PY
"$ORACLE" --answers "$raw" <"$tmp/pairs" >"$tmp/want"
"$SYNCTRACE_BIN" query "$out" --batch <"$tmp/pairs" >"$tmp/got" 2>"$tmp/qerr"
ok $([ $? -eq 0 ] && [ "$(wc -l <"$tmp/want")" -eq 30000 ] && cmp -s "$tmp/want" "$tmp/got"; echo $?) \
    "query --batch: 30000 answers equal the oracle's ($(sort "$tmp/got" | uniq -c | tr -s ' \n' ' '))$(head -1 "$tmp/qerr")"
first=$(head -1 "$tmp/pairs")
a=$("$SYNCTRACE_BIN" query "$out" --precedes ${first% *} ${first#* })
ok $([ -n "$a" ] && [ "$a" = "$(head -1 "$tmp/want")" ]; echo $?) "query --precedes ${first}: $a"

# Bad input: one line, the right status, never an answer.
expect_error() {   # expect_error STATUS PATTERN LABEL CMD...
    local want=$1 pat=$2 label=$3; shift 3
    "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
    local rc=$?
    ok $([ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "$pat" "$tmp/e" && [ ! -s "$tmp/o" ]; echo $?) \
        "$label: exit $rc, $(cat "$tmp/e")"
}
expect_error 2 "R:I" "a malformed event" "$SYNCTRACE_BIN" query "$out" --precedes 1-2 0:0
expect_error 1 "rank 1 has events 0 to" "an event past the end of its rank" "$SYNCTRACE_BIN" query "$out" --precedes 1:99999999 0:0
printf '0:1 1:1\n0:1 x\n' >"$tmp/badpairs"
"$SYNCTRACE_BIN" query "$out" --batch <"$tmp/badpairs" >"$tmp/o" 2>"$tmp/e"
ok $([ $? -eq 1 ] && grep -q "stdin line 2" "$tmp/e"; echo $?) "--batch names the bad input line: $(cat "$tmp/e")"

cp -r "$out" "$tmp/stale"
printf 'x' >>"$tmp/stale/traces/1.evt"
expect_error 1 "stale causal index" "an event file grew after the merge" "$SYNCTRACE_BIN" query "$tmp/stale" --precedes 0:0 1:0
cp -r "$out" "$tmp/stale2"
"$SYNCTRACE_BIN" merge "$tmp/raw-mpi_coll" -o "$tmp/other" >/dev/null 2>&1
cp "$tmp/other/traces.def" "$tmp/stale2/traces.def"
expect_error 1 "stale causal index" "the definitions of another merge" "$SYNCTRACE_BIN" query "$tmp/stale2" --precedes 0:0 1:0
cp -r "$out" "$tmp/corrupt"
"$PYTHON3" -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x5a; open(p, 'wb').write(b)" \
    "$tmp/corrupt/causal.idx"
expect_error 1 "corrupt causal index" "a damaged index" "$SYNCTRACE_BIN" query "$tmp/corrupt" --precedes 0:0 1:0
rm "$tmp/corrupt/causal.idx"
expect_error 1 "no causal index" "a missing index" "$SYNCTRACE_BIN" query "$tmp/corrupt" --precedes 0:0 1:0
"$SYNCTRACE_BIN" merge "$raw" -o "$tmp/nocausal" --no-causal >/dev/null 2>&1
ok $([ ! -e "$tmp/nocausal/causal.idx" ] && [ -e "$tmp/nocausal/traces.otf2" ]; echo $?) "merge --no-causal writes no index"
expect_error 2 "cluster levels" "merge --cluster-levels 8,4" "$SYNCTRACE_BIN" merge "$raw" -o "$tmp/x" --cluster-levels 8,4

# The installed library: a C program compiled and linked through pkg-config.
dest="$tmp/dest"
make -s -C "$top_builddir" install DESTDIR="$dest" >"$tmp/install.log" 2>&1
ok $? "make install DESTDIR=... $(tail -1 "$tmp/install.log")"
pc=$(find "$dest" -name synctrace-causal.pc | head -1)
libdir=$(dirname "$(find "$dest" -name 'libsynctrace-causal.so' | head -1)")
cat >"$tmp/client.c" <<'EOF'
#include <stdio.h>
#include <synctrace/causal.h>
int main(int argc, char **argv)
{
    char err[512];
    if (argc != 2)
        return 2;
    stc_causal *c = stc_causal_open(argv[1], err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("%s\n", stc_relation_name(stc_causal_relation(c, 0, 1, 1, 1)));
    stc_causal_close(c);
    return 0;
}
EOF
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs synctrace-causal 2>&1)
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/client" "$tmp/client.c" $flags >"$tmp/cc.log" 2>&1
ok $? "a C program compiles against the installed synctrace/causal.h with pkg-config ($flags)$(head -2 "$tmp/cc.log" | tr '\n' ' ')"
got=$(LD_LIBRARY_PATH="$libdir" "$tmp/client" "$out" 2>&1)
ok $([ "$got" = "$("$SYNCTRACE_BIN" query "$out" --precedes 0:1 1:1)" ]; echo $?) "and answers as synctrace query does: $got"
# At any number of locations the merge builds the index by default (its
# vectors kept within a memory budget, full vectors stored as small
# differences: tools/causal/causal.h). 1100 locations; the same index rebuilt
# with 1 MB of vectors (several passes over windows of columns) answers
# alike, and as the oracle does.
"$GEN" "$tmp/big" --ranks 1100 --pattern ring --iterations 3 --no-true-time >/dev/null 2>&1
"$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.out" >/dev/null 2>"$tmp/big.err"
ok $([ $? -eq 0 ] && [ -s "$tmp/big.out/causal.idx" ] && ! grep -q "causal" "$tmp/big.err" \
    && grep -q '"causal_index": { "built": true' "$tmp/big.out/report.json"; echo $?) \
    "1100 locations: the merge builds the causal index by default$(head -1 "$tmp/big.err")"
cp -r "$tmp/big.out" "$tmp/big.small"
SYNCTRACE_CAUSAL_MEMORY_MB=1 "$SYNCTRACE_BIN" causal "$tmp/big.small" --force >/dev/null 2>"$tmp/small.err"
passes=$("$PYTHON3" -c 'import json,sys; c=json.load(open(sys.argv[1]))["causal_index"]; print(c["build_passes"], c["window_columns"], c["vector_bytes"])' \
    "$tmp/big.small/report.json" 2>&1)
set -- $passes
ok $([ "${1:-0}" -ge 2 ] && [ "${2:-0}" -lt 1100 ] && [ "${3:-0}" -le $((1 << 20)) ]; echo $?) \
    "rebuilt with SYNCTRACE_CAUSAL_MEMORY_MB=1: ${1:-?} passes over windows of ${2:-?} columns, ${3:-?} bytes of vectors$(head -1 "$tmp/small.err")"
"$PY_OTF2" - "$tmp/big.out/traces.otf2" >"$tmp/bigpairs" <<'PY'
import collections, random, sys, otf2
n = collections.Counter()
with otf2.reader.open(sys.argv[1]) as t:
    for loc, ev in t.events:
        n[loc._ref] += 1
random.seed(5)
ranks = sorted(n)
for k in range(5000):
    b = random.choice(ranks); ib = random.randrange(n[b])
    a = random.choice(ranks); ia = random.randrange(n[a])
    print('%d:%d %d:%d' % (a, ia, b, ib))
PY
"$ORACLE" --answers "$tmp/big" <"$tmp/bigpairs" >"$tmp/bigwant"
"$SYNCTRACE_BIN" query "$tmp/big.out" --batch <"$tmp/bigpairs" >"$tmp/biggot" 2>&1
"$SYNCTRACE_BIN" query "$tmp/big.small" --batch <"$tmp/bigpairs" >"$tmp/bigsmall" 2>&1
ok $([ "$(wc -l <"$tmp/bigwant")" -eq 5000 ] && cmp -s "$tmp/bigwant" "$tmp/biggot" && cmp -s "$tmp/bigwant" "$tmp/bigsmall"; echo $?) \
    "1100 locations: 5000 answers of both indexes equal the oracle's ($(sort "$tmp/biggot" | uniq -c | tr -s ' \n' ' '))"
# Window passes at once (--jobs; tools/causal/causal_passes.c), and full
# vectors encoded beside a pass where cores are spare: the same output,
# file for file, as one at a time.
SYNCTRACE_CAUSAL_MEMORY_MB=1 "$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.j1" --jobs 1 >/dev/null 2>&1
SYNCTRACE_CAUSAL_MEMORY_MB=1 "$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.j3" --jobs 3 >/dev/null 2>"$tmp/j3.err"
got=$("$PYTHON3" -c 'import json,sys; c=[json.load(open(f))["causal_index"] for f in sys.argv[1:]]; print(c[0]["build_passes"], c[0]["build_threads"], c[1]["build_threads"])'     "$tmp/big.j1/report.json" "$tmp/big.j3/report.json" 2>&1)
diff=$(merged_differences "$tmp/big.j1" "$tmp/big.j3" | tr '\n' ' ')
set -- $got
ok $([ "${1:-0}" -ge 3 ] && [ "${2:-0}" = 1 ] && [ "${3:-0}" = 3 ] && [ -z "$diff" ]; echo $?) \
    "1100 locations, ${1:-?} window passes: 3 at once write what one at a time does (threads ${2:-?} and ${3:-?}; differ: ${diff:-none})$(head -1 "$tmp/j3.err")"
"$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.e1" --jobs 1 >/dev/null 2>&1
"$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.e4" --jobs 4 >/dev/null 2>&1
diff=$(merged_differences "$tmp/big.e1" "$tmp/big.e4" | tr '\n' ' ')
ok $([ -s "$tmp/big.e4/causal.idx" ] && [ -z "$diff" ]; echo $?) \
    "1100 locations, one window: its full vectors encoded beside the pass (--jobs 4) give what --jobs 1 does (differ: ${diff:-none})"
rm -rf "$tmp/big.j1" "$tmp/big.j3" "$tmp/big.e1" "$tmp/big.e4"
"$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.out" --force --no-causal >/dev/null 2>&1
ok $([ $? -eq 0 ] && [ ! -e "$tmp/big.out/causal.idx" ]; echo $?) "--no-causal: no index"
SYNCTRACE_CAUSAL_MEMORY_MB=lots "$SYNCTRACE_BIN" merge "$tmp/big" -o "$tmp/big.out" --force >/dev/null 2>"$tmp/big.err"
ok $([ $? -eq 0 ] && [ ! -e "$tmp/big.out/causal.idx" ] && grep -q "SYNCTRACE_CAUSAL_MEMORY_MB=lots: not a number" "$tmp/big.err"; echo $?) \
    "a bad SYNCTRACE_CAUSAL_MEMORY_MB: no index, and the merge says why: $(head -1 "$tmp/big.err")"
finish
