#!/bin/bash
# tests/fuzz/make-seeds.sh BUILD_DIR OUT_DIR [FUZZ_DIR] — real traces for the
# fuzz harnesses, made with the tracer and `synctrace merge` of BUILD_DIR
# (an ordinary build):
#   OUT_DIR/templates/p2p            rank 0's closed archive, tests/mpi_p2p on 2 ranks
#   OUT_DIR/templates/threads        rank 0's closed archive, tests/mpi_threads on 2 ranks
#                                    (MPI_THREAD_MULTIPLE: several locations)
#   OUT_DIR/templates/killed         rank 2's journal and event file, tests/mpi_kill9 sparse
#                                    (SIGKILL after flushing)
#   OUT_DIR/templates/killed-threads rank 1's journal and event files, tests/mpi_kill9_threads
#   OUT_DIR/templates/killed-records rank 2's journal and records file, tests/mpi_kill9 killed
#                                    before its first flush (all its events in the records)
#   OUT_DIR/templates/merged         the merge of the p2p trace (archive, causal.idx,
#                                    rawview.map, report.json, cluster_sizes.csv)
#   OUT_DIR/templates/merged-threads the merge of the threads trace
# With FUZZ_DIR (tests/fuzz/build.sh's output), also the seed corpora
# OUT_DIR/corpus/{raw,journal,causal,export}, written by the harnesses
# themselves from the templates (FUZZ_MAKE_CORPUS), so that each seed's
# selector byte names the file it replaces. About 3 MB in all, most of it the
# killed ranks' event files (one 512 KB chunk each); nothing is committed.
set -euo pipefail
build=$(cd "${1:?usage: make-seeds.sh BUILD_DIR OUT_DIR [FUZZ_DIR]}" && pwd)
out=${2:?usage: make-seeds.sh BUILD_DIR OUT_DIR [FUZZ_DIR]}
fuzz=${3:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$build/.libs/libsynctrace.so
st=$build/synctrace
[ -f "$lib" ] && [ -x "$st" ] || { echo "make-seeds.sh: $build has no libsynctrace.so or synctrace (build first)" >&2; exit 1; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl=self,vader,tcp
rm -rf "$out"
mkdir -p "$out/templates" "$out/work"
work=$out/work
fail() { echo "make-seeds.sh: $*" >&2; exit 1; }
mpi() { timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe "$@"; }
traced() {   # traced DIR NP PROGRAM ARGS...
    local dir=$1 np=$2; shift 2
    mpi -np "$np" -x LD_PRELOAD="$lib" -x SYNCTRACE_DIR="$dir" -x SYNCTRACE_SKEW=seed=5,offset_us=300,drift_ppm=10 \
        -x SYNCTRACE_BUFFER_MB="${SEED_BUFFER_MB:-1}" "$@"
}
for p in mpi_p2p mpi_threads mpi_kill9 mpi_kill9_threads; do
    mpicc -std=c11 -D_GNU_SOURCE -O1 -pthread -o "$work/$p" "$top/tests/mpi/$p.c" -lm || fail "cannot build tests/mpi/$p.c"
done

# one rank's archive: its anchor, global definitions, membership file and folder
rank_files() {   # rank_files TRACE RANK DEST [journal]
    local base
    base=$(printf '%s/rank-%06d' "$1" "$2")
    mkdir -p "$3"
    for f in "$base".otf2 "$base".def "$base".members "$base".journal "$base".records "$base"; do
        [ -e "$f" ] && cp -r "$f" "$3/"
    done
    return 0
}

traced "$work/p2p" 2 "$work/mpi_p2p" >/dev/null || fail "tests/mpi_p2p traced failed"
traced "$work/threads" 2 "$work/mpi_threads" 4 >/dev/null || fail "tests/mpi_threads traced failed"
# The killed ones exit non-zero by design; their leftovers are checked below.
traced "$work/killed" 3 "$work/mpi_kill9" 300000 sparse >/dev/null 2>&1 || true   # sparse: its journal has a source_word record
traced "$work/killed-threads" 3 "$work/mpi_kill9_threads" 100000 >/dev/null 2>&1 || true
# 2000 calls in the default 16 MB buffer: no flush, a records file of one 128 KB chunk
SEED_BUFFER_MB=16 traced "$work/killed-records" 3 "$work/mpi_kill9" 2000 sparse >/dev/null 2>&1 || true
[ -s "$work/killed/rank-000002.journal" ] && [ -s "$work/killed/rank-000002/2.evt" ] \
    || fail "tests/mpi_kill9 left no journal and event file for rank 2"
[ -s "$work/killed-threads/rank-000001.journal" ] || fail "tests/mpi_kill9_threads left no journal for rank 1"
[ -s "$work/killed-records/rank-000002.records" ] && [ ! -e "$work/killed-records/rank-000002/2.evt" ] \
    || fail "tests/mpi_kill9 2000 left no records file (or flushed) for rank 2"

rank_files "$work/p2p" 0 "$out/templates/p2p"
rank_files "$work/threads" 0 "$out/templates/threads"
rank_files "$work/killed" 2 "$out/templates/killed"
rank_files "$work/killed-threads" 1 "$out/templates/killed-threads"
rank_files "$work/killed-records" 2 "$out/templates/killed-records"
# the records file is fuzzed there only: the other templates' are the
# truncated event files' continuation no more (below)
rm -f "$out/templates/killed"/*.records "$out/templates/killed-threads"/*.records
# Each killed location keeps only its first whole chunk (as if killed
# during its second flush): the rebuild is the same, and a read of 8 chunks
# per input would make the fuzzing 8 times slower.
for t in killed killed-threads; do
    chunk=$(sed -n 's/^chunk_size \([0-9]*\)$/\1/p' "$out/templates/$t"/*.journal)
    [ -n "$chunk" ] || fail "no chunk_size in the $t journal"
    for f in "$out/templates/$t"/rank-*/*.evt; do
        [ "$(stat -c %s "$f")" -le "$chunk" ] || truncate -s "$chunk" "$f"
    done
done
for t in p2p threads; do
    "$st" merge "$work/$t" -o "$out/templates/merged${t#p2p}" >/dev/null 2>&1 || fail "synctrace merge of the $t trace failed"
done
mv "$out/templates/mergedthreads" "$out/templates/merged-threads"
for t in merged merged-threads; do
    [ -s "$out/templates/$t/causal.idx" ] || fail "the merge wrote no $t/causal.idx"
    rm -f "$out/templates/$t/report.txt" "$out/templates/$t/cluster_sizes.svg"   # not read by any reader
done
rm -rf "$work"

if [ -n "$fuzz" ]; then
    for h in raw journal causal export; do
        mkdir -p "$out/corpus/$h"
        FUZZ_SEEDS=$out FUZZ_MAKE_CORPUS=$out/corpus/$h "$fuzz/fuzz_$h" >/dev/null 2>&1 \
            || fail "fuzz_$h could not write its seed corpus"
    done
fi
du -sh "$out" | sed 's/^/make-seeds.sh: /'
