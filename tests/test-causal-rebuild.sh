#!/bin/bash
# `synctrace causal OUT`: the causal index rebuilt from the merged archive
# alone. For generator traces, traced MPI programs and a threaded run
# (MPI_THREAD_MULTIPLE: locations of other threads): merge with
# --no-causal, then `synctrace causal`; the index must be the one merge
# itself builds (same body byte for byte, same sweep, same report
# figures), and `synctrace query --batch` must answer random pairs as
# merge's index does and as the brute-force oracle (tests/unit/unit_causal.c)
# does. Then other cluster levels (--force), a stale and a damaged index
# (rebuilt without --force), a valid one (kept without --force), and bad
# input: one-line errors, non-zero exit, nothing written.
. "$top_srcdir/tests/lib.sh"
plan 45
: "${PYTHON3:=python3}"
PY_OTF2=/usr/bin/python3   # Debian's python3, the one python3-otf2 is installed for
GEN="$top_builddir/synctrace-gen"
ORACLE="$top_builddir/tests/unit_causal"
tmp=$(scratch)
PAIRS=${CAUSAL_PAIRS:-20000}

# Random pairs R:I R:I over the merged archive's locations (R: the
# location's place in the definitions, which is the archive's order).
pairs_of() {   # pairs_of OUT SEED > PAIRS
    "$PY_OTF2" - "$1/traces.otf2" "$2" "$PAIRS" <<'PY'
import random, sys, otf2
# python3-otf2 3.0 cannot read an InterComm otherwise (tests/checkers/merged_check.py)
ic = otf2.definitions.InterComm
if [f.name for f in ic._fields][:6] == ["name", "group", "parent", "flags", "groupA", "groupB"]:
    ic._fields = (ic._fields[0],) + tuple(ic._fields[4:])
with otf2.reader.open(sys.argv[1]) as t:
    n = [loc.number_of_events for loc in t.definitions.locations]
random.seed(int(sys.argv[2]))
locs = [r for r in range(len(n)) if n[r]]
for k in range(int(sys.argv[3])):
    b = random.choice(locs); ib = random.randrange(n[b])
    a = b if k % 5 == 0 else random.choice(locs)
    ia = ib if k % 10 == 0 else random.randrange(n[a])
    print('%d:%d %d:%d' % (a, ia, b, ib))
PY
}

# The index file: a 256-byte header (tools/causal/causal_file.c, struct
# file_header) whose first 168 bytes are the configuration and counts, then
# the fingerprint of the archive, size and checksums; then the body.
same_index() {   # same_index IDX1 IDX2
    [ "$(stat -c %s "$1")" = "$(stat -c %s "$2")" ] && cmp -s -n 168 "$1" "$2" && cmp -s -i 256 "$1" "$2"
}

# The causal parts of two reports, without the timings.
same_report() {   # same_report OUT1 OUT2: prints what differs
    "$PYTHON3" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(d + '/report.json')) for d in sys.argv[1:3])
bad = []
ca, cb = a.get('causal_index'), b.get('causal_index')
if not ca or not cb: bad.append('no causal_index')
else:
    for k in set(ca) | set(cb):
        if k not in ('seconds',) and ca.get(k) != cb.get(k): bad.append(k)
untimed = lambda v: {x: y for x, y in v.items() if x != 'seconds'} if isinstance(v, dict) else v
for k in set(a) | set(b):
    if k not in ('seconds', 'causal_index') and untimed(a.get(k)) != untimed(b.get(k)): bad.append('report ' + k)
# report.txt: the causal section is its last lines, from "  causal index  " on
ta, tb = (open(d + '/report.txt').read() for d in sys.argv[1:3])
ca, cb = (t[t.find('\n  causal index  ') + 1:] if '\n  causal index  ' in t else '' for t in (ta, tb))
if len(ca.splitlines()) != 2 or ca != cb: bad.append('report.txt causal lines %r %r' % (ca, cb))
if tb.count('\n  causal index  ') != 1: bad.append('report.txt has %d causal sections' % tb.count('\n  causal index  '))
print(' '.join(bad))
PY
}

# rebuild_case LABEL RAW [oracle]: merge with and without the index, rebuild, compare.
rebuild_case() {
    local label=$1 raw=$2 use_oracle=${3:-}
    local a="$raw.with" b="$raw.without"
    "$SYNCTRACE_BIN" merge "$raw" -o "$a" >/dev/null 2>"$raw.merge.err" \
        && "$SYNCTRACE_BIN" merge "$raw" -o "$b" --no-causal >/dev/null 2>>"$raw.merge.err"
    ok $([ $? -eq 0 ] && [ -e "$a/causal.idx" ] && [ ! -e "$b/causal.idx" ] && [ ! -e "$b/cluster_sizes.csv" ] \
         && ! grep -q causal_index "$b/report.json"; echo $?) \
        "$label: merged with and without (--no-causal: no index, no sweep, no causal report)$(head -1 "$raw.merge.err")"
    "$SYNCTRACE_BIN" causal "$b" >"$raw.causal.out" 2>"$raw.causal.err"
    ok $([ $? -eq 0 ] && [ ! -s "$raw.causal.err" ] && same_index "$a/causal.idx" "$b/causal.idx" \
         && cmp -s "$a/cluster_sizes.csv" "$b/cluster_sizes.csv" && cmp -s "$a/cluster_sizes.svg" "$b/cluster_sizes.svg" \
         && ! ls "$b" | grep -q tmp; echo $?) \
        "$label: synctrace causal builds merge's own index (same body), sweep and plot; nothing left behind$(head -1 "$raw.causal.err")"
    local diff
    diff=$(same_report "$a" "$b")
    ok $([ -z "$diff" ]; echo $?) "$label: report.json and report.txt: the causal section as merge writes it${diff:+ — differs: $diff}"
    pairs_of "$b" 11 >"$raw.pairs"
    "$SYNCTRACE_BIN" query "$a" --batch <"$raw.pairs" >"$raw.want" 2>"$raw.qerr"
    "$SYNCTRACE_BIN" query "$b" --batch <"$raw.pairs" >"$raw.got" 2>>"$raw.qerr"
    local same=1 what="merge's index"
    [ "$(wc -l <"$raw.got")" -eq "$PAIRS" ] && cmp -s "$raw.want" "$raw.got" && same=0
    if [ -n "$use_oracle" ] && [ $same -eq 0 ]; then
        "$ORACLE" --answers "$raw" <"$raw.pairs" >"$raw.oracle" 2>>"$raw.qerr"
        cmp -s "$raw.oracle" "$raw.got" || same=1
        what="merge's index and the oracle"
    fi
    ok $same "$label: query --batch: $PAIRS answers equal $what ($(sort "$raw.got" | uniq -c | tr -s ' \n' ' '))$(head -1 "$raw.qerr")"
}

# ---------------------------------------------------------------- generator traces
for p in random tree alltoall; do
    "$GEN" "$tmp/gen-$p" --ranks 16 --pattern "$p" --iterations 12 --sync-rounds 4 --ranks-per-node 2 \
        >/dev/null 2>"$tmp/gen-$p.err" || echo "# $(cat "$tmp/gen-$p.err")"
    rebuild_case "$p, 16 ranks" "$tmp/gen-$p" oracle
done

# ---------------------------------------------------------------- traced MPI programs
# (mpi_zerobytes: zero-byte and sparse collectives, the data-flow rule)
for prog in mpi_p2p mpi_coll mpi_zerobytes; do
    exe=$(build_mpi "$prog" "$tmp") || exe=/nonexistent
    SYNCTRACE_SKEW=seed=5,offset_us=500,drift_ppm=20 run_traced "$tmp/raw-$prog" 4 "$exe" >/dev/null 2>"$tmp/$prog.err"
    rebuild_case "$prog, 4 ranks traced" "$tmp/raw-$prog" oracle
done
# One-sided operations (mpi_mapping: windows, puts, gets, atomics, locks,
# PSCW): their events count in R:I like any other, so the archive is read
# with them (before, `synctrace causal` took the trace for corrupt: "has
# 386 events, its definition says 407").
exe=$(build_mpi mpi_mapping "$tmp") || exe=/nonexistent
SYNCTRACE_SKEW=seed=21,offset_us=700,drift_ppm=25 run_traced "$tmp/raw-mpi_mapping" 4 "$exe" >/dev/null \
    2>"$tmp/mpi_mapping.err"
rebuild_case "mpi_mapping (one-sided), 4 ranks traced" "$tmp/raw-mpi_mapping"
# Threads: the other threads' locations follow the ranks' (R = P, P+1, ...);
# requests posted on one thread complete on another.
mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_threads" "$top_srcdir/tests/mpi/mpi_threads.c" \
    2>"$tmp/threads.build.err" || echo "# $(head -1 "$tmp/threads.build.err")"
SYNCTRACE_SKEW=seed=9,offset_us=1000,drift_ppm=50 run_traced "$tmp/raw-threads" 3 "$tmp/mpi_threads" 30 \
    >/dev/null 2>&1
rebuild_case "mpi_threads, 3 ranks x 4 threads traced" "$tmp/raw-threads"

# ---------------------------------------------------------------- other cluster levels, stale, damaged, valid
out="$tmp/raw-mpi_p2p.without"
cp "$out/causal.idx" "$tmp/valid.idx"
"$SYNCTRACE_BIN" causal "$out" >"$tmp/o" 2>"$tmp/e"
ok $([ $? -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "valid causal index exists.*--force" "$tmp/e" \
     && [ ! -s "$tmp/o" ] && cmp -s "$tmp/valid.idx" "$out/causal.idx"; echo $?) \
    "a valid index is kept without --force: exit 1, $(cat "$tmp/e")"
"$SYNCTRACE_BIN" causal "$out" --force --cluster-levels 4,16 >/dev/null 2>"$tmp/e"
rc=$?
"$SYNCTRACE_BIN" query "$out" --batch <"$tmp/raw-mpi_p2p.pairs" >"$tmp/levels.got" 2>>"$tmp/e"
lv=$("$PYTHON3" -c "import json,sys; print(json.load(open(sys.argv[1]))['causal_index']['max_cluster_sizes'])" \
     "$out/report.json" 2>&1)
ok $([ $rc -eq 0 ] && [ "$lv" = "[4, 16]" ] && ! cmp -s "$tmp/valid.idx" "$out/causal.idx" \
     && cmp -s "$tmp/levels.got" "$tmp/raw-mpi_p2p.oracle" && grep -q "clusters <= 4,16" "$out/report.txt"; echo $?) \
    "--force --cluster-levels 4,16: replaced, report says $lv, the same $PAIRS answers$(head -1 "$tmp/e")"

# Stale: the index of another merge (its fingerprint names another archive).
st="$tmp/raw-mpi_coll.without"
cp "$tmp/raw-mpi_p2p.with/causal.idx" "$st/causal.idx"
"$SYNCTRACE_BIN" query "$st" --precedes 0:0 1:0 >/dev/null 2>"$tmp/e"
grep -q "stale causal index" "$tmp/e"
ok $? "another merge's index is stale to query: $(cat "$tmp/e")"
"$SYNCTRACE_BIN" causal "$st" >/dev/null 2>"$tmp/e"
rc=$?
"$SYNCTRACE_BIN" query "$st" --batch <"$tmp/raw-mpi_coll.pairs" >"$tmp/stale.got" 2>/dev/null
ok $([ $rc -eq 0 ] && grep -q "stale" "$tmp/e" && cmp -s "$tmp/stale.got" "$tmp/raw-mpi_coll.oracle" \
     && same_index "$st/causal.idx" "$tmp/raw-mpi_coll.with/causal.idx"; echo $?) \
    "a stale index is rebuilt without --force (says: $(cat "$tmp/e")), and answers as the oracle"

# Damaged: one byte flipped in the middle.
dm="$tmp/gen-tree.without"
"$PYTHON3" -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x5a; open(p, 'wb').write(b)" \
    "$dm/causal.idx"
"$SYNCTRACE_BIN" causal "$dm" >/dev/null 2>"$tmp/e"
ok $([ $? -eq 0 ] && grep -q "corrupt" "$tmp/e" && same_index "$dm/causal.idx" "$tmp/gen-tree.with/causal.idx"; echo $?) \
    "a damaged index is rebuilt without --force: $(cat "$tmp/e")"
# A report merge did not write: the index is still built, the report left alone and said so.
printf '{ "format": 1 }\n' >"$dm/report.json"
"$SYNCTRACE_BIN" causal "$dm" --force >/dev/null 2>"$tmp/e"
ok $([ $? -eq 0 ] && grep -q "report.json: not as synctrace merge writes it, left alone" "$tmp/e" \
     && [ "$(cat "$dm/report.json")" = '{ "format": 1 }' ]; echo $?) \
    "a report.json merge did not write is left alone, with a warning: $(cat "$tmp/e")"

# ---------------------------------------------------------------- bad input
expect_error() {   # expect_error STATUS PATTERN LABEL CMD...
    local want=$1 pat=$2 label=$3; shift 3
    "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
    local rc=$?
    ok $([ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "$pat" "$tmp/e" && [ ! -s "$tmp/o" ]; echo $?) \
        "$label: exit $rc, $(cat "$tmp/e")"
}
expect_error 1 "$tmp/none: No such file" "no OUT_DIR" "$SYNCTRACE_BIN" causal "$tmp/none"
mkdir "$tmp/empty"
expect_error 1 "empty/traces.otf2: No such file" "OUT_DIR without traces.otf2" "$SYNCTRACE_BIN" causal "$tmp/empty"
# (their index, stale now, stays as it was: nothing is written)
cp -r "$tmp/gen-random.without" "$tmp/truncated"
f=$(ls "$tmp"/truncated/traces/*.evt | head -1)
head -c 100 "$f" >"$f.x" && mv "$f.x" "$f"
expect_error 1 "traces.otf2" "an event file cut short" "$SYNCTRACE_BIN" causal "$tmp/truncated"
ok $(cmp -s "$tmp/truncated/causal.idx" "$tmp/gen-random.without/causal.idx" \
     && cmp -s "$tmp/truncated/report.json" "$tmp/gen-random.without/report.json" \
     && ! ls "$tmp/truncated" | grep -q tmp; echo $?) "and nothing written: index and report as they were, no temporary files"
cp -r "$tmp/gen-random.without" "$tmp/baddef"
printf 'garbage' >"$tmp/baddef/traces.def"
expect_error 1 "traces.otf2" "garbage definitions" "$SYNCTRACE_BIN" causal "$tmp/baddef"
expect_error 2 "cluster-levels 8,4" "decreasing cluster levels" "$SYNCTRACE_BIN" causal "$out" --cluster-levels 8,4
expect_error 2 "unexpected argument" "an unknown option" "$SYNCTRACE_BIN" causal "$out" --fast
finish
