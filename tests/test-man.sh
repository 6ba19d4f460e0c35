#!/bin/bash
# test-man.sh — the man pages (docs/man/) render without a warning and keep
# up with the commands: every option a command's --help prints is in its
# page, so that a new option without its documentation fails here.
. "$top_srcdir/tests/lib.sh"
man=$top_srcdir/docs/man
pages="synctrace.1 synctrace-merge.1 synctrace-report.1 synctrace-query.1 synctrace-causal.1 synctrace-export.1
       synctrace-dump.1 synctrace-gen.1 synctrace-waits.1 libsynctrace.3 libsynctrace-causal.3"
commands="merge report query causal export dump waits"
plan $((11 + 7 + 1 + 2))
if ! command -v groff >/dev/null 2>&1; then
    for i in $(seq 20); do skip "groff not installed (groff-base)"; done
    finish
fi
for p in $pages; do
    out=$(groff -man -Tutf8 -ww -z "$man/$p" 2>&1)
    ok $([ -f "$man/$p" ] && [ -z "$out" ]; echo $?) "$p renders without a warning${out:+: $(echo "$out" | head -1)}"
done
# options of a --help text, as a page writes them (\-\-name)
missing() {   # missing HELP_TEXT PAGE
    local o miss=""
    for o in $(printf '%s\n' "$1" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$2" || miss="$miss $o"
    done
    echo "$miss"
}
for c in $commands; do
    help=$("$SYNCTRACE_BIN" "$c" --help 2>&1)
    m=$(missing "$help" "$man/synctrace-$c.1")
    [ "$c" = causal ] && m=${m/ --no-causal/}   # merge's option, which causal's help only mentions
    ok $([ -n "$help" ] && [ -z "$m" ]; echo $?) "synctrace-$c.1 has every option of 'synctrace $c --help'${m:+ (missing:$m)}"
done
help=$("$top_builddir/synctrace-gen" --help 2>&1)
m=$(missing "$help" "$man/synctrace-gen.1")
ok $([ -n "$help" ] && [ -z "$m" ]; echo $?) "synctrace-gen.1 has every option of 'synctrace-gen --help'${m:+ (missing:$m)}"
# the tracer's environment: every SYNCTRACE_ variable src/options.c reads
# is in libsynctrace.3 and in the user guide's table, and the README names
# only variables that exist
vars=$(grep -o '"SYNCTRACE_[A-Z_]*"' "$top_srcdir/src/options.c" | tr -d '"' | sort -u)
m=""
for v in $vars; do
    grep -qF "$v" "$man/libsynctrace.3" || m="$m $v (libsynctrace.3)"
    grep -qF "| \`$v\` |" "$top_srcdir/docs/guide.md" || m="$m $v (docs/guide.md)"
done
for v in $(sed -n '/^Environment (all optional):/,/^[A-Z][a-z]/p' "$top_srcdir/README" | grep -o '^  SYNCTRACE_[A-Z_]*'); do
    echo "$vars" | grep -qx "$v" || m="$m $v (README, not read by the tracer)"
done
ok $([ "$(echo $vars | wc -w)" -ge 10 ] && [ -z "$m" ]; echo $?) "libsynctrace.3 and docs/guide.md document the $(echo $vars | wc -w) variables the tracer reads${m:+ (missing:$m)}"
# the commands synctrace --help lists are in synctrace.1
m=""
for c in $("$SYNCTRACE_BIN" --help 2>&1 | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
    grep -q "synctrace\\\\-$c" "$man/synctrace.1" || m="$m $c"
done
ok $([ -z "$m" ]; echo $?) "synctrace.1 names every command of 'synctrace --help'${m:+ (missing:$m)}"
finish
