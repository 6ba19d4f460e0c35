#!/bin/bash
# The source tree holds no unresolved merge: no line of a tracked text
# file (sources, tests, docs, build files) starts a conflict marker, which
# twice slipped into docs from a merge that was committed half-resolved.
. "$top_srcdir/tests/lib.sh"
plan 1
# Seven '<' or '>' and a space (or end of line) at the start of a line;
# written as a class so this file does not match itself.
marker='^([<]{7}|[>]{7})( |$)'
found=$(cd "$top_srcdir" && grep -rIlE "$marker" --include='*.[ch]' --include='*.md' --include='*.sh' \
    --include='*.py' --include='*.am' --include='*.ac' --include='*.spec' --include='*.F90' --include='*.f90' \
    --include=README --include=ChangeLog src tools wrappers tests docs bench scripts m4 README ChangeLog \
    Makefile.am configure.ac 2>/dev/null | tr '\n' ' ')
ok $([ -z "$found" ]; echo $?) "no conflict markers in the tree${found:+: $found}"
finish
