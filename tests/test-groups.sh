#!/bin/bash
# test-groups.sh — SYNCTRACE_MPI_GROUPS chooses which MPI function groups
# are recorded: by default all but the pure queries (MPI_Wtime, MPI_Wtick);
# a left-out group's calls leave no region, while what the merge needs
# (messages, collectives) is recorded whatever the setting; the program's
# output never changes; a bad value is one line and the run is untraced.
. "$top_srcdir/tests/lib.sh"
plan 12

tmp=$(scratch)
prog=$(build_mpi mpi_groups "$tmp") || prog=/nonexistent
run_plain 2 "$prog" 2>/dev/null | sort >"$tmp/plain.out"

# count REGION: calls of that region over all ranks of dump $1 (an ENTER
# with calls=N is a polling run of N unsuccessful calls, src/polling.h)
count() {
    awk -v r="$2" '$3 == "ENTER" && $0 ~ ("region=" r "( |$)") {
        c = 1; for (i = 4; i <= NF; i++) if ($i ~ /^calls=/) c = substr($i, 7) + 0; n += c }
        END { print n + 0 }' "$1"
}
msgs() { grep -c ' SEND \| RECV ' "$1"; }

trace() {   # trace LABEL GROUPS|unset
    local d="$tmp/$1"
    if [ "$2" = unset ]; then unset SYNCTRACE_MPI_GROUPS; else export SYNCTRACE_MPI_GROUPS="$2"; fi
    run_traced "$d" 2 "$prog" 2>"$d.err" | sort >"$d.out"
    unset SYNCTRACE_MPI_GROUPS
    "$SYNCTRACE_BIN" dump "$d" >"$d.dump" 2>"$d.dump.err"
}

trace default unset
ok $([ -s "$tmp/plain.out" ] && cmp -s "$tmp/plain.out" "$tmp/default.out"; echo $?) "default: output unchanged"
ok $([ "$(count "$tmp/default.dump" MPI_Wtime)" = 0 ] && [ "$(count "$tmp/default.dump" MPI_Wtick)" = 0 ] \
     && [ "$(count "$tmp/default.dump" MPI_Type_size)" = 20 ] && [ "$(count "$tmp/default.dump" MPI_Iprobe)" = 20 ]; echo $?) \
    "default: no MPI_Wtime/MPI_Wtick regions (2000 calls left out), every other call recorded (20 MPI_Type_size, 20 MPI_Iprobe)"

trace all ALL
ok $(cmp -s "$tmp/plain.out" "$tmp/all.out"; echo $?) "ALL: output unchanged"
ok $([ "$(count "$tmp/all.dump" MPI_Wtime)" = 2000 ] && [ "$(count "$tmp/all.dump" MPI_Wtick)" = 2000 ]; echo $?) \
    "ALL: every MPI_Wtime and MPI_Wtick is a region ($(count "$tmp/all.dump" MPI_Wtime) and $(count "$tmp/all.dump" MPI_Wtick))"

trace minus DEFAULT,~TYPE,~xreqtest
ok $([ "$(count "$tmp/minus.dump" MPI_Type_size)" = 0 ] && [ "$(count "$tmp/minus.dump" MPI_Iprobe)" = 0 ] \
     && [ "$(count "$tmp/minus.dump" MPI_Comm_rank)" = 2 ]; echo $?) \
    "DEFAULT,~TYPE,~xreqtest: no MPI_Type_size or MPI_Iprobe regions, MPI_Comm_rank still (names case-insensitive)"

trace none NONE
ok $(cmp -s "$tmp/plain.out" "$tmp/none.out"; echo $?) "NONE: output unchanged"
ok $([ "$(count "$tmp/none.dump" MPI_Comm_rank)" = 0 ] && [ "$(count "$tmp/none.dump" MPI_Send)" = 1 ] \
     && [ "$(count "$tmp/none.dump" MPI_Recv)" = 1 ] && [ "$(count "$tmp/none.dump" MPI_Barrier)" = 2 ] \
     && [ "$(msgs "$tmp/none.dump")" = "$(msgs "$tmp/default.dump")" ]; echo $?) \
    "NONE: queries left out, but the send, the receive, both barriers and every sync message recorded ($(msgs "$tmp/none.dump") messages)"
"$SYNCTRACE_BIN" merge "$tmp/none" -o "$tmp/none.m" >/dev/null 2>"$tmp/none.m.err"
ok $? "NONE: the trace merges ($(head -1 "$tmp/none.m.err"))"
ok $([ "$(grep -c 'region=MPI_Wtime' "$tmp/all.dump")" -gt "$(grep -c 'region=MPI_Wtime' "$tmp/default.dump")" ] \
     && [ "$(du -sk "$tmp/all" | cut -f1)" -gt "$(du -sk "$tmp/default" | cut -f1)" ]; echo $?) \
    "the default trace is smaller than ALL's ($(du -sk "$tmp/default" | cut -f1) KiB against $(du -sk "$tmp/all" | cut -f1) KiB)"

trace bad "DEFAULT,~NOPE"
ok $(cmp -s "$tmp/plain.out" "$tmp/bad.out"; echo $?) "unknown group: output unchanged"
ok $([ "$(grep -c '^synctrace: SYNCTRACE_MPI_GROUPS: unknown group .NOPE.' "$tmp/bad.err")" = 1 ] \
     && [ "$(wc -l <"$tmp/bad.err")" = 1 ]; echo $?) "unknown group: one line naming it ($(cat "$tmp/bad.err"))"
ok $([ ! -e "$tmp/bad/rank-000000.otf2" ]; echo $?) "unknown group: the run is not traced"
finish
