#!/bin/bash
# test-polling.sh — polling loops are collapsed (src/polling.h): a run of
# unsuccessful MPI_Test/Testany/Testsome/Testall/Iprobe/Improbe/
# Request_get_status calls with the same arguments on one location is ONE
# region whose Enter carries the collapsed_calls attribute, and nothing the
# merge needs is lost. tests/mpi/mpi_polling.c (and its Fortran twin) makes,
# per phase, exactly K+p calls that cannot succeed before it lets its peer
# send, then polls until it succeeds; it prints its own count of calls.
# Checks never depend on timing: sums of counts equal the program's counts,
# each phase's K+p calls are exactly one region, calls with other arguments
# never join a run, MPI_Wtime (unrecorded by default) does not end a run.
. "$top_srcdir/tests/lib.sh"
top_srcdir=$(cd "$top_srcdir" && pwd)
: "${MPIFORT:=}"
# the independent checkers read OTF2 with python3-otf2 (Debian's python3 has it)
pyotf2=/usr/bin/python3
for p in "${PYTHON3:-python3}" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
plan 26
tmp=$(scratch)
K=1000
skew=seed=13,offset_us=900,drift_ppm=40
funcs="MPI_Test MPI_Iprobe MPI_Testany MPI_Testsome MPI_Testall MPI_Improbe MPI_Request_get_status"

if ! mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_polling" \
    "$top_srcdir/tests/mpi/mpi_polling.c" 2>"$tmp/build.err"; then
    sed 's/^/# /' "$tmp/build.err"
    for i in $(seq 26); do ok 1 "build tests/mpi/mpi_polling.c"; done
    finish
fi
prog=$tmp/mpi_polling

# calls DUMP RANK FUNCTION: calls of FUNCTION on RANK (all its threads) in a
# dump: an ENTER with calls=N stands for N calls, any other for one.
calls() {
    awk -v r="$2" -v f="$3" '$3 == "ENTER" && ($1 == r || index($1, r ".") == 1) && $0 ~ ("region=" f "( |$)") {
        c = 1; for (i = 4; i <= NF; i++) if ($i ~ /^calls=/) c = substr($i, 7) + 0; n += c }
        END { print n + 0 }' "$1"
}
# regions DUMP RANK FUNCTION [collapsed|single]: its ENTER events (only those with/without calls=)
regions() {
    awk -v r="$2" -v f="$3" -v w="${4:-}" '$3 == "ENTER" && ($1 == r || index($1, r ".") == 1) && $0 ~ ("region=" f "( |$)") {
        has = $0 ~ / calls=/; if (w == "" || (w == "collapsed" && has) || (w == "single" && !has)) n++ }
        END { print n + 0 }' "$1"
}
# runs DUMP FUNCTION: the calls= values of FUNCTION's regions, space-separated
runs() { awk -v f="$2" '$3 == "ENTER" && $0 ~ ("region=" f " calls=") { sub(/.*calls=/, ""); printf "%s ", $1 }' "$1"; }
has_run() { case " $(runs "$1" "$2")" in *" $3 "*) return 0 ;; esac; return 1; }
# program's own count: "polls RANK FUNCTION N" on its stderr
said() { awk -v r="$2" -v f="$3" '$1 == "polls" && $2 == r && $3 == f { n += $4 } END { print n + 0 }' "$1"; }
# every polling function's calls in the dump equal the program's count; echo the mismatches
compare() {
    local f bad=""
    for f in $funcs; do
        [ "$(calls "$1" 0 "$f")" = "$(said "$2" 0 "$f")" ] || bad="$bad $f:$(calls "$1" 0 "$f")/$(said "$2" 0 "$f")"
    done
    echo "$bad"
}
events() { "$SYNCTRACE_BIN" dump --events "$1" | wc -l; }

# ---------------------------------------------------------------- C, collapse on (the default)
run_plain 2 "$prog" main $K 2>"$tmp/plain.err" | sort >"$tmp/plain.out"
SYNCTRACE_SKEW=$skew run_traced "$tmp/on" 2 "$prog" main $K 2>"$tmp/on.err" >"$tmp/on.out"
ok $? "mpi_polling runs traced on 2 ranks with skewed clocks"
sort -o "$tmp/on.out" "$tmp/on.out"
ok $([ -s "$tmp/plain.out" ] && cmp -s "$tmp/plain.out" "$tmp/on.out"; echo $?) "output identical traced and untraced"
"$SYNCTRACE_BIN" dump --events "$tmp/on" >"$tmp/on.dump" 2>"$tmp/on.dump.err"
bad=$(compare "$tmp/on.dump" "$tmp/on.err")
ok $([ -s "$tmp/on.dump" ] && [ -z "$bad" ]; echo $?) \
    "raw trace: the calls of every polling function add up to the program's count ($(said "$tmp/on.err" 0 MPI_Test) MPI_Test ...)${bad:+ (not:$bad)}"
missing=""
for fp in MPI_Test:1 MPI_Iprobe:2 MPI_Testany:3 MPI_Testsome:4 MPI_Testall:5 MPI_Improbe:6 MPI_Request_get_status:7 \
    MPI_Test:9; do
    has_run "$tmp/on.dump" "${fp%:*}" $((K + ${fp#*:})) || missing="$missing $fp"
done
ok $([ -z "$missing" ]; echo $?) "each phase's K+p unsuccessful calls are exactly one region${missing:+ (missing:$missing)}"
alt=$(regions "$tmp/on.dump" 0 MPI_Iprobe single)
ok $([ "$alt" -ge $((2 * (K + 8))) ] && [ "$(regions "$tmp/on.dump" 0 MPI_Iprobe)" -le $((2 * (K + 8) + 3)) ]; echo $?) \
    "MPI_Iprobe on two tags in turn: never collapsed ($alt single MPI_Iprobe regions, at least $((2 * (K + 8))))"
ok $(has_run "$tmp/on.dump" MPI_Test $((K + 9)); echo $?) \
    "an unrecorded MPI_Wtime between MPI_Test calls does not end the run (a run of $((K + 9)))"
ok $([ "$(grep -c ' ENTER .* calls=' "$tmp/on.dump")" -ge 8 ] && [ "$(regions "$tmp/on.dump" 0 MPI_Test)" -le 6 ]; echo $?) \
    "MPI_Test: $(said "$tmp/on.err" 0 MPI_Test) calls in $(regions "$tmp/on.dump" 0 MPI_Test) regions"

# ---------------------------------------------------------------- collapse off
SYNCTRACE_POLL_COLLAPSE=0 SYNCTRACE_SKEW=$skew run_traced "$tmp/off" 2 "$prog" main $K 2>"$tmp/off.err" | sort >"$tmp/off.out"
"$SYNCTRACE_BIN" dump --events "$tmp/off" >"$tmp/off.dump" 2>/dev/null
bad=$(compare "$tmp/off.dump" "$tmp/off.err")
ok $(cmp -s "$tmp/plain.out" "$tmp/off.out" && [ -z "$bad" ] && ! grep -q ' calls=' "$tmp/off.dump" \
     && [ "$(regions "$tmp/off.dump" 0 MPI_Test)" = "$(said "$tmp/off.err" 0 MPI_Test)" ]; echo $?) \
    "SYNCTRACE_POLL_COLLAPSE=0: every call its own region, output unchanged${bad:+ (not:$bad)}"
on_ev=$(wc -l <"$tmp/on.dump")
off_ev=$(wc -l <"$tmp/off.dump")
ok $([ $((on_ev * 3)) -lt "$off_ev" ]; echo $?) "collapsing shrinks the trace: $on_ev events against $off_ev"

# ---------------------------------------------------------------- merge
"$SYNCTRACE_BIN" merge "$tmp/on" -o "$tmp/on.m" >/dev/null 2>"$tmp/on.m.err"
ok $? "the trace merges"
ok $("$pyotf2" -c "
import json, sys
r = json.load(open('$tmp/on.m/report.json'))
sys.exit(0 if r['tachyons_after'] == 0 and r['unmatched_sends'] == 0 and r['unmatched_receives'] == 0
         and r['messages'] > 9 else 1)"; echo $?) "report: every message matched, 0 tachyons after the merge"
"$pyotf2" "$top_srcdir/tests/checkers/merged_check.py" "$tmp/on.m/traces.otf2" >"$tmp/on.check" 2>&1
ok $(grep -q ' tachyons 0 .*unmatched_sends 0 unmatched_receives 0' "$tmp/on.check"; echo $?) \
    "independent check of the merged archive: $(tail -1 "$tmp/on.check")"
"$pyotf2" "$top_srcdir/tests/checkers/polling_check.py" "$tmp/on.m/traces.otf2" >"$tmp/on.m.calls" 2>&1
bad=""
for f in $funcs; do
    line=$(awk -v f="$f" '$3 == f' "$tmp/on.m.calls")
    [ "$(echo "$line" | awk '{print $4}')" = "$(said "$tmp/on.err" 0 "$f")" ] || bad="$bad $f"
    [ "$(echo "$line" | awk '{print $8}' | tr ',' ' ' | sed 's/^-$//')" = "$(runs "$tmp/on.dump" "$f" | sed 's/ $//')" ] \
        || bad="$bad $f(runs)"
done
ok $([ -z "$bad" ]; echo $?) "merged archive: the collapsed_calls attributes pass through (every count and run)${bad:+ (not:$bad)}"
ok $("$pyotf2" -c "
import json, sys
p = json.load(open('$tmp/on.m/report.json'))['polling']
sys.exit(0 if p['regions'] == $(grep -c ' calls=' "$tmp/on.dump") and p['calls'] == $(runs "$tmp/on.dump" '[A-Za-z_]*' | tr ' ' '\n' | awk '{n += $1} END {print n + 0}') else 1)"; echo $?) \
    "report.json counts the collapsed regions and their calls ($(grep -o '"polling": {[^}]*}' "$tmp/on.m/report.json"))"

"$SYNCTRACE_BIN" export "$tmp/on.m" --format chrome -o "$tmp/on.json" >/dev/null 2>&1
ok $([ "$(grep -o '"calls":[0-9]*' "$tmp/on.json" | cut -d: -f2 | awk '{n += $1} END {print n + 0}')" \
       = "$(runs "$tmp/on.dump" '[A-Za-z_]*' | tr ' ' '\n' | awk '{n += $1} END {print n + 0}')" ]; echo $?) \
    "chrome export: a collapsed region's slice carries args.calls"

# ---------------------------------------------------------------- MPI_Wtime recorded: it ends runs
SYNCTRACE_MPI_GROUPS=ALL run_traced "$tmp/all" 2 "$prog" main $K 2>"$tmp/all.err" | sort >"$tmp/all.out"
"$SYNCTRACE_BIN" dump --events "$tmp/all" >"$tmp/all.dump" 2>/dev/null
bad=$(compare "$tmp/all.dump" "$tmp/all.err")
ok $(cmp -s "$tmp/plain.out" "$tmp/all.out" && [ -z "$bad" ] && ! has_run "$tmp/all.dump" MPI_Test $((K + 9)) \
     && has_run "$tmp/all.dump" MPI_Test $((K + 1)); echo $?) \
    "SYNCTRACE_MPI_GROUPS=ALL: a recorded MPI_Wtime ends the run, counts still add up${bad:+ (not:$bad)}"

# ---------------------------------------------------------------- threads
run_plain 2 "$prog" threads $K 2>/dev/null | sort >"$tmp/tplain.out"
SYNCTRACE_SKEW=$skew run_traced "$tmp/thr" 2 "$prog" threads $K 2>"$tmp/thr.err" | sort >"$tmp/thr.out"
ok $([ -s "$tmp/tplain.out" ] && cmp -s "$tmp/tplain.out" "$tmp/thr.out"; echo $?) \
    "threads (MPI_THREAD_MULTIPLE, 2 polling threads): output identical traced and untraced"
"$SYNCTRACE_BIN" dump --events "$tmp/thr" >"$tmp/thr.dump" 2>/dev/null
bad=$(compare "$tmp/thr.dump" "$tmp/thr.err")
locs=$(awk '$3 == "ENTER" && / calls=/ {print $1}' "$tmp/thr.dump" | sort -u | tr '\n' ' ')
ok $([ -z "$bad" ] && [ "$locs" = "0.1 0.2 " ] && has_run "$tmp/thr.dump" MPI_Test $K && has_run "$tmp/thr.dump" MPI_Test $((K + 1)) \
     && has_run "$tmp/thr.dump" MPI_Iprobe $((K + 10)) && has_run "$tmp/thr.dump" MPI_Iprobe $((K + 11)); echo $?) \
    "threads: each thread's runs in its own location ($locs), exact, counts add up${bad:+ (not:$bad)}"
"$SYNCTRACE_BIN" merge "$tmp/thr" -o "$tmp/thr.m" >/dev/null 2>&1
ok $("$pyotf2" -c "
import json, sys
r = json.load(open('$tmp/thr.m/report.json'))
sys.exit(0 if r['tachyons_after'] == 0 and r['unmatched_sends'] == 0 and r['unmatched_receives'] == 0 else 1)"; echo $?) \
    "threads: merged, every message matched, 0 tachyons"

# ---------------------------------------------------------------- a fatal signal with a run open
SYNCTRACE_POLL_COLLAPSE=1 run_traced "$tmp/crash" 1 "$prog" crash 500 >/dev/null 2>&1
"$SYNCTRACE_BIN" dump --events "$tmp/crash" >"$tmp/crash.dump" 2>"$tmp/crash.dump.err"
ok $([ -e "$tmp/crash/rank-000000.sum" ] && [ "$(runs "$tmp/crash.dump" MPI_Iprobe)" = "500 " ] \
     && [ "$(tail -1 "$tmp/crash.dump" | awk '{print $3, $5}')" = "LEAVE region=MPI_Iprobe" ]; echo $?) \
    "abort() while a run is open: the signal path closes the archive with the run written (500 calls, Enter and Leave)"

# ---------------------------------------------------------------- MPI calls inside a polling call
# An erroneous MPI_Iprobe (every 10th) runs the communicator's error handler,
# which polls (3 MPI_Iprobe) and calls MPI_Comm_rank inside it: the outer
# call's Enter must come first, the handler's run inside, timestamps in order.
run_plain 1 "$prog" nested 100 >"$tmp/nplain.out" 2>"$tmp/nplain.err"
run_traced "$tmp/nest" 1 "$prog" nested 100 >"$tmp/nest.out" 2>"$tmp/nest.err"
"$SYNCTRACE_BIN" dump --events "$tmp/nest" >"$tmp/nest.dump" 2>/dev/null
nested=$(awk '$3 == "ENTER" && /region=MPI_Iprobe$/ { open = 1; next }
              open && $3 == "ENTER" && / calls=3$/ { n++ } $3 == "LEAVE" && /region=MPI_Iprobe$/ { open = 0 }
              END { print n + 0 }' "$tmp/nest.dump")
ok $(cmp -s "$tmp/nplain.out" "$tmp/nest.out" && cmp -s "$tmp/nplain.err" "$tmp/nest.err" \
     && [ "$(calls "$tmp/nest.dump" 0 MPI_Iprobe)" = "$(said "$tmp/nest.err" 0 MPI_Iprobe)" ] && [ "$nested" = 10 ] \
     && awk '{ split($4, a, "="); if (a[2] < prev) bad = 1; prev = a[2] } END { exit bad }' "$tmp/nest.dump"; echo $?) \
    "MPI calls in an error handler inside a polling call: its Enter first, the handler's run ($nested of 10) inside, times in order, output and stderr unchanged"

# ---------------------------------------------------------------- a bad value
SYNCTRACE_POLL_COLLAPSE=yes run_traced "$tmp/bad" 2 "$prog" main 10 >"$tmp/bad.out" 2>"$tmp/bad.err"
ok $([ "$(grep -c "^synctrace: SYNCTRACE_POLL_COLLAPSE: 'yes' is not 0 or 1" "$tmp/bad.err")" = 1 ] \
     && [ ! -e "$tmp/bad/rank-000000.otf2" ] && [ "$(wc -l <"$tmp/bad.out")" = 10 ]; echo $?) \
    "SYNCTRACE_POLL_COLLAPSE=yes: one line naming it, the run untraced and unchanged"

# ---------------------------------------------------------------- Fortran
if [ -z "$MPIFORT" ]; then
    for i in 1 2 3 4; do skip "no MPI Fortran compiler (configure found no working mpifort)"; done
    finish
fi
for fl in use_mpi f08; do
    def=; [ $fl = f08 ] && def=-DBINDING_F08
    if ! (cd "$tmp" && "$MPIFORT" -ffree-line-length-none -O1 $def -o "$tmp/f_$fl" "$top_srcdir/tests/mpi/mpi_polling_f.F90") \
        2>"$tmp/f_$fl.build"; then
        ok 1 "build tests/mpi/mpi_polling_f.F90 ($fl)"
        ok 1 "Fortran ($fl) polling"
        continue
    fi
    run_plain 2 "$tmp/f_$fl" >"$tmp/f_$fl.plain" 2>/dev/null
    run_traced "$tmp/f_$fl.trace" 2 "$tmp/f_$fl" >"$tmp/f_$fl.out" 2>"$tmp/f_$fl.err"
    ok $([ -s "$tmp/f_$fl.plain" ] && cmp -s "$tmp/f_$fl.plain" "$tmp/f_$fl.out"; echo $?) \
        "Fortran ($fl): output identical traced and untraced"
    "$SYNCTRACE_BIN" dump --events "$tmp/f_$fl.trace" >"$tmp/f_$fl.dump" 2>/dev/null
    ok $([ "$(calls "$tmp/f_$fl.dump" 0 MPI_Test)" = "$(said "$tmp/f_$fl.err" 0 MPI_Test)" ] \
         && [ "$(calls "$tmp/f_$fl.dump" 0 MPI_Iprobe)" = "$(said "$tmp/f_$fl.err" 0 MPI_Iprobe)" ] \
         && has_run "$tmp/f_$fl.dump" MPI_Test $((K + 1)) && has_run "$tmp/f_$fl.dump" MPI_Iprobe $((K + 2)); echo $?) \
        "Fortran ($fl): MPI_Test and MPI_Iprobe runs collapsed exactly, counts add up ($(said "$tmp/f_$fl.err" 0 MPI_Test), $(said "$tmp/f_$fl.err" 0 MPI_Iprobe))"
done
finish
