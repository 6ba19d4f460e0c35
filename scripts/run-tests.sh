#!/bin/sh
# Set everything up, build, run the test suite, then the unit tests once
# more under AddressSanitizer and UndefinedBehaviorSanitizer, the
# threaded test with the tracer under ThreadSanitizer, and the fuzzers.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# Each phase's seconds, printed as it ends: the suite must stay well under
# CI's 15 minutes, and this says where they go.
start=$(date +%s) last=$start
phase() {
    now=$(date +%s)
    echo "run-tests: $1 took $((now - last)) s ($((now - start)) s in all)"
    last=$now
}
"$top/scripts/setup-debian.sh"
"$top/scripts/build.sh"
phase "setup and build"
build=${BUILD_DIR:-$top/build}
status=0
# One test per core at once (automake's parallel harness): the suite
# waits on mpirun's starts, sync rounds and timeouts as much as it
# computes (2 cores: 5-6 minutes instead of 14; TEST_JOBS=1: one at a time).
jobs=${TEST_JOBS:-$(nproc)}
# Meanwhile the sanitizer build (and its test programs) at the lowest
# priority, one compiler at a time: it takes the cores only while the
# tests wait, so they run as fast as alone, and the two minutes it took
# after them are mostly gone.
( BUILD_DIR="$build-asan" nice -n 19 "$top/scripts/build.sh" --enable-sanitizers \
    && nice -n 19 make -s -C "$build-asan" check TESTS= >/dev/null ) >"$build-asan.log" 2>&1 &
asan_build=$!
make -s -j"$jobs" -C "$build" check || status=1
cat "$build"/test-suite.log 2>/dev/null | sed -n '/^FAIL\|^ERROR/,+30p' | head -100
phase "make check"
if ! wait $asan_build; then
    echo "the sanitizer build failed:"
    tail -30 "$build-asan.log"
    status=1
fi
make -s -j"$jobs" -C "$build-asan" check TESTS='$(UNIT_TESTS)' || status=1
phase "sanitizer build and unit tests"
# The commands shared among K processes (merge, a foreign archive's
# merge, waits) under the sanitizers too (the traced programs preload the
# plain build's tracer; Open MPI's own allocations outlive MPI_Finalize,
# so no leak check).
# The tools configure found (a python3 that imports otf2 may not be the
# first in PATH), as make check passes them.
configured() { sed -n "s|^$1 = ||p" "$build/Makefile"; }
for t in test-mpirun-merge test-mpirun-foreign test-mpirun-waits; do
    log="$build-asan/$t.asan.log"
    ASAN_OPTIONS=detect_leaks=0 top_srcdir="$top" top_builddir="$build-asan" SYNCTRACE_LIB="$build/.libs/libsynctrace.so" \
        MPIRUN="$(configured MPIRUN)" PYTHON3="$(configured PYTHON3)" OTF2_PRINT="$(configured OTF2_PRINT)" \
        bash "$top/tests/$t.sh" >"$log" 2>&1 || true
    planned=$(sed -n 's/^1\.\.//p' "$log")
    passed=$(grep -c '^ok' "$log" || true)
    echo "$t.sh under ASan/UBSan: $passed of ${planned:-?} ok"
    if [ "$passed" != "${planned:-x}" ]; then
        grep -v '^ok' "$log" | head -40
        status=1
    fi
done
phase "the K-process commands under the sanitizers"
# The tracer under ThreadSanitizer: a -fsanitize=thread build of the library
# only, preloaded by tests/test-threads.sh into its MPI_THREAD_MULTIPLE run.
mkdir -p "$build-tsan"
(cd "$build-tsan" && { [ -f Makefile ] || "$top/configure" -q CFLAGS="-g -O1 -fsanitize=thread" \
    LDFLAGS="-fsanitize=thread"; } && make -s -j"$(nproc)" libsynctrace.la >/dev/null) || status=1
SYNCTRACE_TSAN_LIB="$build-tsan/.libs/libsynctrace.so" make -s -C "$build" check TESTS=tests/test-threads.sh || status=1
phase "ThreadSanitizer"
# The readers fuzzed for half a minute each (libFuzzer, ASan + UBSan;
# tests/fuzz/): the suite must stay well under CI's 15 minutes; longer
# runs (FUZZ_SECONDS) go on from the corpora build/fuzz/corpus keeps.
BUILD_DIR="$build" "$top/tests/fuzz/run.sh" "${FUZZ_SECONDS:-30}" || status=1
phase "fuzzing"
exit $status
