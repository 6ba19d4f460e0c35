#!/bin/bash
# The layout as a map (issue 35): no two folders include each other; the
# tracer's modules (src/) neither include nor call each other in a cycle
# (the globals live in state.c, below them all); header base names are
# unique, so that every folder's headers can be found by name.
. "$top_srcdir/tests/lib.sh"
plan 3
tmp=$(scratch)
graph="$top_srcdir/scripts/include-graph.py"

"${PYTHON3:-python3}" "$graph" >"$tmp/folders" 2>"$tmp/folders.err"
ok $? "no cycle between folders, every include resolved to one file ($(wc -l <"$tmp/folders") folder edges)$(head -c 300 "$tmp/folders.err")"

"${PYTHON3:-python3}" "$graph" --files src >/dev/null 2>"$tmp/src.err"
ok $? "no include cycle between the files of src/ $(head -c 300 "$tmp/src.err")"

objs=$(ls "$top_builddir"/src/.libs/libsynctrace_la-*.o 2>/dev/null)
if [ -z "$objs" ]; then
    skip "no objects of libsynctrace in $top_builddir/src/.libs"
else
    # shellcheck disable=SC2086
    "${PYTHON3:-python3}" "$graph" --objects $objs >/dev/null 2>"$tmp/sym.err"
    ok $? "no call cycle between the tracer's modules ($(echo "$objs" | wc -l) objects) $(head -c 300 "$tmp/sym.err")"
fi
finish
