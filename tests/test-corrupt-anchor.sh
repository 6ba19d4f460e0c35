#!/bin/bash
# An anchor file whose property count is garbled (found by tests/fuzz/):
# OTF2 3.0 would allocate a table of that many entries (up to 32 GB) and
# free them one by one, seconds to minutes per open. The readers check the
# count against the file's size first: `synctrace dump` (raw archive) and
# `synctrace export` (merged archive) fail at once with one line naming
# the file, and a count that fits is still read.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 5
tmp=$(scratch)
"$top_builddir/synctrace-gen" "$tmp/raw" --ranks 2 --pattern ring --iterations 5 --seed 1 >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$tmp/raw" -o "$tmp/out" >/dev/null 2>&1
ok $? "a synthetic trace of 2 ranks, merged"

# set_count ANCHOR N: write N as the anchor's property count (OTF2 3.0's
# layout: chunk header, byte order, "OTF2", format, 38 bytes, 3 strings).
set_count() {
    "$PYTHON3" - "$1" "$2" <<'PY'
import struct, sys
path, count = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, "rb").read())
pos = b.index(0, 2) + 1 + 1 + 38
for _ in range(3):
    pos = b.index(0, pos) + 1
struct.pack_into("<I" if b[1] == 0x42 else ">I", b, pos, count)
open(path, "wb").write(b)
PY
}
# Each command must fail within 20 s with one line naming the file.
one_line() {   # one_line LABEL FILE COMMAND...
    local label=$1 file=$2; shift 2
    timeout 20 "$@" >/dev/null 2>"$tmp/err"
    local rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
        && grep -q "$file: corrupt anchor file (2147483647 properties in" "$tmp/err"
    ok $? "$label: exit $rc, $(head -1 "$tmp/err")"
}

# Without its checksum file (a rank that died while closing) the archive
# is not rejected by checksum but read with structural checks: these.
rm -f "$tmp/raw/rank-000001.sum"
cp "$tmp/raw/rank-000001.otf2" "$tmp/keep"
set_count "$tmp/raw/rank-000001.otf2" 2147483647
one_line "raw anchor with 2^31-1 properties" "rank-000001.otf2" "$SYNCTRACE_BIN" dump "$tmp/raw"
cp "$tmp/keep" "$tmp/raw/rank-000001.otf2"
"$SYNCTRACE_BIN" dump "$tmp/raw" >/dev/null 2>"$tmp/err"
ok $? "the same anchor restored is read ($(head -1 "$tmp/err"))"

set_count "$tmp/out/traces.otf2" 2147483647
one_line "merged anchor with 2^31-1 properties" "traces.otf2" "$SYNCTRACE_BIN" export "$tmp/out" --format chrome -o -
set_count "$tmp/out/traces.otf2" 0
"$SYNCTRACE_BIN" export "$tmp/out" --format chrome -o - >/dev/null 2>"$tmp/err"
ok $? "the merged anchor with its count put back (0) is read ($(head -1 "$tmp/err"))"
finish
