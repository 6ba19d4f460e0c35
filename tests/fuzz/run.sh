#!/bin/bash
# tests/fuzz/run.sh SECONDS [HARNESS...] — build the fuzz harnesses (clang,
# libFuzzer, ASan + UBSan: tests/fuzz/build.sh), make the seed traces
# (tests/fuzz/make-seeds.sh) and run each harness (raw journal causal
# export, or those named) for SECONDS, FUZZ_JOBS at once (default: one per
# core). Fails on any
# finding: a crash, a sanitizer report, a leak, an input slower than 10 s
# (a hang) or one needing more than 2 GB (an unbounded allocation).
#
# Environment: BUILD_DIR the ordinary build (default: build; the tracer and
# `synctrace merge` make the seeds), FUZZ_DIR where the harnesses, seeds,
# corpora and findings go (default: BUILD_DIR/fuzz). The corpora
# (FUZZ_DIR/corpus/NAME) are kept: a later run starts where this one ended.
# A finding is FUZZ_DIR/findings/NAME-crash-*; reproduce it with
#   FUZZ_SEEDS=FUZZ_DIR/seeds FUZZ_DIR/fuzz_NAME FILE
set -euo pipefail
seconds=${1:?usage: tests/fuzz/run.sh SECONDS [raw|journal|causal|export ...]}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
fuzz=${FUZZ_DIR:-$build/fuzz}
harnesses=${*:-raw journal causal export}
# Several runs may share FUZZ_DIR (different harnesses at once): one
# builds and makes the seeds at a time.
mkdir -p "$fuzz"
exec 9>"$fuzz/.lock"
flock 9
"$top/tests/fuzz/build.sh" "$fuzz"
# Seeds made by an older build may be in a format the readers now refuse
# at once (a stale causal index seed left fuzz_causal at a third of its
# coverage): they are made again whenever the build is newer.
if [ ! -f "$fuzz/seeds/.complete" ] || [ "$build/synctrace" -nt "$fuzz/seeds/.complete" ] \
    || [ "$build/.libs/libsynctrace.so" -nt "$fuzz/seeds/.complete" ]; then
    rm -rf "$fuzz/seeds"
    "$top/tests/fuzz/make-seeds.sh" "$build" "$fuzz/seeds" "$fuzz"
    touch "$fuzz/seeds/.complete"
fi
flock -u 9
export FUZZ_SEEDS=$fuzz/seeds
# The suppressions name OTF2's functions: LeakSanitizer needs a symbolizer
# to see them (Debian's llvm-14 has one, but not under the plain name).
for sym in "${ASAN_SYMBOLIZER_PATH:-}" /usr/lib/llvm-14/bin/llvm-symbolizer "$(command -v llvm-symbolizer || true)"; do
    [ -n "$sym" ] && [ -x "$sym" ] && { export ASAN_SYMBOLIZER_PATH=$sym; break; }
done
export LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# OTF2 3.0's OTF2_AnchorFile_Load (inside OTF2_Reader_Open) trusts the
# anchor's uint32 property count: calloc(2 * count, 8), up to 32 GB, before
# it finds the file too short for that many and fails. glibc's calloc
# returns such a block untouched (or NULL), so the tools just report the
# damaged anchor; under ASan the block's shadow is written, a minute per
# input. So ASan refuses blocks over 2 GB and returns NULL, as a libc may
# (OTF2 then fails with "Can't create property storage"), instead of
# counting them as findings: our own code touches what it allocates, and
# -rss_limit_mb catches that. Reproduce: an anchor whose property count is
# 0x0c000000.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048}
# Every input rewrites a file or two: in memory when /dev/shm is there.
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
scratch=$(mktemp -d "$tmp/synctrace-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# One harness: its run, its summary line; 1 on a finding.
run_one() {
    local h=$1
    mkdir -p "$fuzz/corpus/$h" "$fuzz/findings"
    local log=$fuzz/fuzz_$h.log start
    start=$(date +%s)
    # -len_control=0: the seeds are whole files, mutated in place; grown
    # slowly from short inputs, mutants would be cut short for minutes.
    # -close_fd_mask=3: the readers' warnings would fill the log (libFuzzer
    # keeps its own and the sanitizers' reports); TMPDIR: the harness's
    # scratch copies and the journal's rebuilt archives (one each).
    local rc=0
    # The harnesses that hand damaged definitions to OTF2: libotf2 has no
    # frame pointers, so only the slow unwinder sees past its frames to the
    # entry point a leak of OTF2's own came through (lsan.supp names it).
    # Not for the others: unwinding every malloc and free that way made
    # the journal harness time out.
    local unwind=""
    case $h in raw | export) unwind=":fast_unwind_on_malloc=0:malloc_context_size=12" ;; esac
    mkdir -p "$scratch/$h"
    ASAN_OPTIONS=$ASAN_OPTIONS$unwind TMPDIR=$scratch/$h "$fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -len_control=0 \
        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$fuzz/findings/$h-" \
        "$fuzz/corpus/$h" "$fuzz/seeds/corpus/$h" >"$log" 2>&1 || rc=$?
    local done_line execs findings
    done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    findings=$(ls "$fuzz/findings" 2>/dev/null | grep -c "^$h-" || true)
    echo "fuzz_$h: ${execs:-?} executions in $(($(date +%s) - start)) s, exit $rc, $findings finding(s): ${done_line:-no progress line}" \
        | tee -a "$fuzz/summary.log"
    if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
        grep -E -A25 '^==[0-9]+==ERROR|runtime error|^SUMMARY|ALARM|out-of-memory|malloc\(' "$log" | head -60 >&2 || true
        echo "fuzz_$h: FAILED (log: $log, findings: $fuzz/findings/$h-*)" >&2
        return 1
    fi
    return 0
}

for h in $harnesses; do
    [ -x "$fuzz/fuzz_$h" ] || { echo "fuzz: no harness '$h' (raw journal causal export)" >&2; exit 2; }
done
# FUZZ_JOBS harnesses at once (default: one per core): each runs its
# SECONDS on a core of its own, so the same fuzzing takes less time.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
status=0 running=0
for h in $harnesses; do
    run_one "$h" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
exit $status
