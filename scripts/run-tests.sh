#!/bin/sh
# Set everything up, build, run the test suite, then the unit tests once
# more under AddressSanitizer and UndefinedBehaviorSanitizer.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup-debian.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
status=0
make -s -C "$build" check || status=1
cat "$build"/test-suite.log 2>/dev/null | sed -n '/^FAIL\|^ERROR/,+30p' | head -100
BUILD_DIR="$build-asan" "$top/scripts/build.sh" --enable-sanitizers
make -s -C "$build-asan" check TESTS='$(UNIT_TESTS)' || status=1
exit $status
