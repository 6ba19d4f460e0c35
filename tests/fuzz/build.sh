#!/bin/sh
# tests/fuzz/build.sh OUT_DIR — build the fuzz harnesses of tests/fuzz/ with
# clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (Debian:
# clang-14 libclang-rt-14-dev), apart from the mpicc build: the readers'
# sources (what libstcommon, libstformat and the causal/export code are
# built from) are compiled here once more with the sanitizers and
# -fsanitize=fuzzer-no-link, then each harness is linked with them.
# Produces OUT_DIR/fuzz_raw, fuzz_journal, fuzz_causal, fuzz_export.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tests/fuzz/build.sh OUT_DIR}
mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
CC=${FUZZ_CC:-}
if [ -z "$CC" ]; then
    for c in clang clang-14; do command -v "$c" >/dev/null 2>&1 && CC=$c && break; done
fi
[ -n "$CC" ] || { echo "tests/fuzz/build.sh: no clang (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$out/obj/probe.c"
"$CC" -fsanitize=fuzzer "$out/obj/probe.c" -o "$out/obj/probe" 2>/dev/null \
    || { echo "tests/fuzz/build.sh: $CC cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)" >&2; exit 1; }

# The version recover.c stamps on rebuilt archives, from configure.ac.
version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
printf '#define PACKAGE_VERSION "%s"\n' "$version" >"$out/obj/config.h.tmp" && mv "$out/obj/config.h.tmp" "$out/obj/config.h"
awk -f "$top/tools/export/html2c.awk" "$top/tools/export/timeline.html" >"$out/obj/export_html_page.h.tmp" \
    && mv "$out/obj/export_html_page.h.tmp" "$out/obj/export_html_page.h"

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# HTML_BIN_CELLS: the page's time bins, 2^19 cells to encode per export,
# would take most of each input's time; their code is the same at 2^12.
CFLAGS="-std=c11 -g -O1 -Wall -Wextra -D_GNU_SOURCE -DHTML_BIN_CELLS=4096u $SAN $(otf2-config --cflags 2>/dev/null || true)"
INC="-I$out/obj -I$top/include -I$top/src -I$top/common -I$top/format"
for d in util match clock clc output parallel merge causal export waits cli; do INC="$INC -I$top/tools/$d"; done
LIBS="$(otf2-config --ldflags 2>/dev/null || true) $(otf2-config --libs 2>/dev/null || echo -lotf2) -lm -lpthread"

# The readers and what they call (causal_file.c is included by its harness,
# which needs its static checksum functions).
# common/, format/ and tools/util/ whole, as their libraries are.
sources="$(ls "$top"/common/*.c "$top"/format/*.c "$top"/tools/util/*.c)
         $top/tools/output/rawview.c $top/tools/output/rawview_simplify.c $top/tools/clock/clockmodel.c
         $top/tools/causal/causal_query.c
         $top/tools/export/export.c $top/tools/export/export_json.c $top/tools/export/export_chrome.c $top/tools/export/export_html.c
         $top/tools/export/flowmatch.c $top/tools/export/workspan.c $top/tools/export/export_waits.c
         $top/tools/waits/waits_instances.c $top/tools/waits/waits_out.c"
objs=""
for s in $sources; do
    o="$out/obj/$(basename "$(dirname "$s")")_$(basename "$s" .c).o"
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer-no-link $INC -c "$s" -o "$o"
    objs="$objs $o"
done
for h in raw journal causal export; do
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer $INC "$top/tests/fuzz/fuzz_$h.c" "$top/tests/fuzz/fuzz_common.c" $objs \
        $LIBS -o "$out/fuzz_$h.tmp"
    mv "$out/fuzz_$h.tmp" "$out/fuzz_$h"
done
