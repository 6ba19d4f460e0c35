#!/bin/bash
# test-foreign.sh — `synctrace merge` on Score-P's traces (tests/data/scorep,
# real Score-P 8.4 traces with known clock distortion, skew.json): the
# copy is the input record for record (otf2copy_check.py, times aside),
# its times never go back within a location, no message goes backwards,
# its error against the true time is no worse than the input's own
# interpolated ClockOffsets (foreign_check.py), ViTE and otf2-print open it,
# the input is untouched, and bad input is refused in one line.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
traces="stencil hybrid npb-cg-S"
per_trace=18
plan $(($(echo $traces | wc -w) * per_trace + 25 + 6 * 10))
tmp=$(scratch)
check="$top_srcdir/tests/checkers"
print() { otf2-print -A -M -C "$1" >"$2" 2>"$2.err"; }
# vite_on ANCHOR SUMMARY: ViTE's headless export; its lines (paths and
# Qt's session notice aside) and the SVG's states and arrows into SUMMARY
vite_on() {
    QT_QPA_PLATFORM=offscreen timeout 120 "${VITE:-vite}" -f "$1" -e "$2.svg" >"$2.log" 2>&1 || return 1
    { grep -v 'XDG_RUNTIME_DIR\|Opening the file\|xporting trace\|xport of' "$2.log" | sed 's/[0-9][0-9.e+-]*/N/g' | sort -u
      echo "svg: $(grep -c '<rect' "$2.svg") states, $(grep -c '<line' "$2.svg") arrows"; } >"$2"
}

for t in $traces; do
    data=$top_srcdir/tests/data/scorep/$t
    in=$data/scorep/traces.otf2
    mkdir -p "$tmp/$t"
    out=$tmp/$t/OUT
    before=$(cd "$data" && find . -type f -exec md5sum {} + | sort | md5sum)
    "$SYNCTRACE_BIN" merge "$data/scorep" -o "$out" >"$out.log" 2>&1
    rc=$?
    ok $rc "$t: synctrace merge of the Score-P experiment directory (exit $rc) $(head -c 300 "$out.log" | tr '\n' ' ' | grep -v '^synctrace merge: 4 ranks')"
    grep -q "^  input         Score-P 8.4: 4 processes" "$out.log"
    ok $? "$t: the input is named as Score-P's ($(grep -o 'Score-P[^,]*, [0-9]* locations' "$out.log"))"
    [ -f "$out/traces.otf2" ] && [ -f "$out/report.json" ] && [ -f "$out/report.txt" ] && [ -f "$out/input.json" ] \
        && [ -z "$(ls -d "$out".tmp-* "$out".work-* 2>/dev/null)" ]
    ok $? "$t: OUT holds the copy, report.json, report.txt and input.json; nothing else is left beside it"
    [ "$(cd "$data" && find . -type f -exec md5sum {} + | sort | md5sum)" = "$before" ]
    ok $? "$t: the input is unchanged, nothing written into it"
    print "$in" "$out.in.p"
    print "$out/traces.otf2" "$out.out.p"
    [ ! -s "$out.out.p.err" ] && "$PYTHON3" "$check/otf2copy_check.py" "$out.in.p" "$out.out.p" 0 --dropped --new-clock >"$out.copy"
    ok $? "$t: otf2-print of the copy is the input's, record for record, ClockOffsets and times aside $(grep -v '^ok' "$out.copy" | head -c 300)"
    "$PYTHON3" "$check/foreign_check.py" "$in" "$out/traces.otf2" "$data/skew.json" >"$out.check" 2>&1
    n=0
    while IFS= read -r line; do
        case $line in
        "ok - "*) n=$((n + 1)); ok 0 "$t: ${line#ok - }" ;;
        "not ok - "*) n=$((n + 1)); ok 1 "$t: ${line#not ok - }" ;;
        "{"*) diag "$t: $line" ;;
        esac
    done <"$out.check"
    [ $n -eq 7 ]
    ok $? "$t: foreign_check.py ran its 7 checks ($n) $(grep -v '^ok\|^not ok\|^{' "$out.check" | head -c 300)"
    "$SYNCTRACE_BIN" report "$out" >"$out.report" 2>&1 && grep -q "tachyons" "$out.report"
    ok $? "$t: synctrace report reads OUT"
    # the causal index of the copy (its indices count the modelled events):
    # rank 0's first event happened before rank 1's last, and not after it
    last=$(("$(grep -o '"events_modelled": [0-9]*' "$out/input.json" | grep -o '[0-9]*$')" / 4 - 1))
    [ -f "$out/causal.idx" ] && [ "$("$SYNCTRACE_BIN" query "$out" --precedes 0:0 1:$((last / 2)) 2>&1)" = before ] \
        && [ "$("$SYNCTRACE_BIN" query "$out" --precedes 1:$((last / 2)) 0:0 2>&1)" = after ] \
        && "$SYNCTRACE_BIN" causal "$out" --force >"$out.causal" 2>&1
    ok $? "$t: OUT has its causal index; synctrace query and causal work on it $(tail -c 200 "$out.causal" 2>/dev/null)"
    if command -v "${VITE:-vite}" >/dev/null 2>&1; then
        # ViTE says of the copy what it says of the input (Score-P's
        # location groups, communicators it cannot place), and draws as
        # much: every arrow, and the states within 1% (its SVG export
        # drops states narrower than it draws, and the times moved)
        vite_on "$in" "$out.vin" && vite_on "$out/traces.otf2" "$out.vout" \
            && cmp -s <(grep -v '^svg' "$out.vin") <(grep -v '^svg' "$out.vout") \
            && "$PYTHON3" -c 'import re, sys
a, b = ([int(x) for x in re.findall(r"\d+", open(p).read().split("svg:")[1])] for p in sys.argv[1:])
sys.exit(not (a[1] == b[1] and abs(a[0] - b[0]) <= a[0] / 100))' "$out.vin" "$out.vout"
        ok $? "$t: ViTE opens the copy as it opens the input: $(grep -h 'errors and' "$out.vout" | head -1), $(grep -h 'svg' "$out.vout" | head -1) $(diff "$out.vin" "$out.vout" | head -c 300)"
    else
        skip "ViTE not installed (Debian's vite)"
    fi
    "$PYTHON3" - "$out/input.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kind"].startswith("Score-P") and j["processes"] == 4 and j["clock_domains"] == "process"
assert 0 < j["events_modelled"] <= j["events"] and j["offsets_dropped"] > 0
assert len(j["input_offset_error_ns"]) == 4 and j["input_offset_error_ns"][0] == 0
EOF
    ok $? "$t: input.json says what was read and how far the input's offsets were off ($(grep -o '"input_offset_error_ns": \[[^]]*\]' "$out/input.json"))"
    "$SYNCTRACE_BIN" merge "$data/scorep" -o "$out" >/dev/null 2>"$out.again"
    [ $? -ne 0 ] && grep -q "exists" "$out.again"
    ok $? "$t: an existing OUT is not replaced without --force"
done

# NAS CG's trace has messages going backwards under its own ClockOffsets
# (what Vampir shows); none in the copy
fig=$(grep '^{' "$tmp/npb-cg-S/OUT.check")
[ "$(echo "$fig" | "$PYTHON3" -c "import json,sys; d=json.load(sys.stdin); print(d['input_backwards'] > 0 and d['backwards'] == 0)")" = True ]
ok $? "npb-cg-S: messages backwards under the input's ClockOffsets, none in the copy ($(echo "$fig" | grep -o '"backwards": [0-9]*, "input_backwards": [0-9]*'))"

# archives in Score-P's layout written here (tests/checkers/scorep_like.py:
# 64 processes, 3 threads, an accelerator stream and a metric location
# each, parameters; no ClockOffsets: the messages alone place the clocks),
# one of a run cut short, one of 8 processes whose halves also talk over an
# intercommunicator (INTER_COMM, peers ranks of the remote group), one
# with a fence epoch and a put per iteration (Score-P's RMA records), and
# one with a PSCW epoch per iteration on the ring (Score-P's RmaGroupSyncs),
# and one with a record of every other event kind OTF2 has (--zoo: I/O,
# calling contexts, tasks, locks, flushes, ..., attributes of every type)
for kind in whole cut inter rma pscw zoo; do
    g=$tmp/like-$kind
    case $kind in
    inter) shape=(--processes 8 --threads 2 --iterations 6 --seed 4 --intercomm) ;;
    rma) shape=(--processes 8 --threads 2 --iterations 6 --seed 6 --rma) ;;
    pscw) shape=(--processes 8 --threads 2 --iterations 6 --seed 7 --pscw) ;;
    zoo) shape=(--processes 4 --threads 2 --iterations 3 --seed 8 --zoo) ;;
    cut) shape=(--processes 64 --threads 3 --iterations 6 --seed 3 --cut) ;;
    *) shape=(--processes 256 --threads 2 --iterations 3 --seed 3) ;;   # hundreds of processes
    esac
    "$PYTHON3" "$check/scorep_like.py" "$g" "${shape[@]}" >"$g.gen" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$g" -o "$g.out" >"$g.log" 2>&1
    ok $? "Score-P layout, $kind: ${shape[1]} processes merged ($(head -1 "$g.log" 2>/dev/null; tail -c 200 "$g.gen" 2>/dev/null))"
    print "$g/traces.otf2" "$g.in.p"
    print "$g.out/traces.otf2" "$g.out.p"
    [ ! -s "$g.out.p.err" ] && "$PYTHON3" "$check/otf2copy_check.py" "$g.in.p" "$g.out.p" 0 --dropped --new-clock >"$g.copy"
    ok $? "Score-P layout, $kind: the copy is the input record for record $(grep -v '^ok' "$g.copy" | head -c 300)"
    "$PYTHON3" "$check/foreign_check.py" "$g/traces.otf2" "$g.out/traces.otf2" "$g/skew.json" >"$g.check" 2>&1
    tap_from_checker "Score-P layout, $kind: " "$g.check"
    [ "$(grep -c '^ok\|^not ok' "$g.check")" = 7 ]
    ok $? "Score-P layout, $kind: foreign_check.py ran its 7 checks $(grep -v '^ok\|^not ok\|^{' "$g.check" | head -c 300)"
done
# the zoo: the copy in place is the copy through OTF2's reader and writer
# (a flush's stop time is mapped the same way), every command works on it,
# and ViTE reads it without an error
z=$tmp/like-zoo
SYNCTRACE_COPY=records "$SYNCTRACE_BIN" merge "$z" -o "$z.rec" >"$z.rec.log" 2>&1 && print "$z.rec/traces.otf2" "$z.rec.p"
cmp -s <(grep -v '^Trace identifier' "$z.out.p") <(grep -v '^Trace identifier' "$z.rec.p") \
    && grep -q "locations' events rewritten in place" "$z.log"
ok $? "Score-P layout, zoo: the copy in place is the copy through OTF2, record for record ($(grep -o '[0-9]* locations. events rewritten in place' "$z.log"))"
# the time map's blocks (foreign_timemap.c) of 3 events: every block's ends crossed, the same copy
SYNCTRACE_TIMEMAP_BLOCK=3 "$SYNCTRACE_BIN" merge "$tmp/like-pscw" -o "$tmp/like-pscw.b3" >/dev/null 2>&1 \
    && print "$tmp/like-pscw.b3/traces.otf2" "$tmp/like-pscw.b3.p"
cmp -s <(grep -v '^Trace identifier' "$tmp/like-pscw.out.p") <(grep -v '^Trace identifier' "$tmp/like-pscw.b3.p")
ok $? "Score-P layout, pscw: the time map read 3 events a block gives the same copy"
{ "$SYNCTRACE_BIN" report "$z.out" >/dev/null || echo "report failed"
  "$SYNCTRACE_BIN" waits "$z.out" --json >/dev/null || echo "waits failed"
  "$SYNCTRACE_BIN" export "$z.out" --format html >/dev/null 2>"$z.html.err" || echo "export html failed"
  # the merge counts the events every reader of the copy counts (a BufferFlush is one)
  m=$(sed -n 's/^synctrace merge: [0-9]* ranks, \([0-9]*\) events.*/\1/p' "$z.log")
  x=$(sed -n 's/.*timeline.html: \([0-9]*\) events.*/\1/p' "$z.html.err")
  [ -n "$m" ] && [ "$m" = "$x" ] || echo "the merge counts $m events, the export $x"
  "$SYNCTRACE_BIN" export "$z.out" --format chrome >/dev/null 2>&1 || echo "export chrome failed"
  "$SYNCTRACE_BIN" query "$z.out" --precedes 0:1 1:5 >/dev/null || echo "query failed"; } >"$z.cmds" 2>&1
[ ! -s "$z.cmds" ] && [ -s "$z.out/waits.json" ] && [ -s "$z.out/timeline.html" ] && [ -s "$z.out/trace.json" ]
ok $? "Score-P layout, zoo: report, waits, both exports and query work on the copy, counting the merge's events ($m) $(head -c 300 "$z.cmds")"
if command -v "${VITE:-vite}" >/dev/null; then
    vite_on "$z.out/traces.otf2" "$z.vite" && grep -q "^N errors and N warnings were found" "$z.vite" \
        && grep -q "0 errors and 0 warnings" "$z.vite.log"
    ok $? "Score-P layout, zoo: ViTE reads the copy, no error ($(grep -o 'svg: .*' "$z.vite" 2>/dev/null))"
else
    skip "Score-P layout, zoo: no vite"
fi

# a run that finished has no rank incomplete; one cut short the quarter
# that stopped before MPI_Finalize (16 of 64), said so
for x in whole:0 cut:16; do
    "$PYTHON3" -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['incomplete_ranks'] != int(sys.argv[2]))" \
        "$tmp/like-${x%:*}.out/report.json" "${x#*:}"
    ok $? "Score-P layout, ${x%:*}: ${x#*:} ranks ended without MPI_Finalize, as written $(grep -o 'incomplete .*' "$tmp/like-${x%:*}.log")"
done
# every message of the intercommunicator matched: 8 x 6 on the ring, 4 x 6 across
"$PYTHON3" -c "import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(not (r['messages'] == 72 and r['unmatched_sends'] == 0 and r['unmatched_receives'] == 0))" \
    "$tmp/like-inter.out/report.json"
ok $? "Score-P layout, inter: all 72 messages matched, the 24 over the intercommunicator too ($(grep -o '[0-9]* messages' "$tmp/like-inter.log"))"
# every put ordered before its target's closing fence ends: 8 x 6 orderings,
# some violated by the skewed clocks, none after the merge
"$PYTHON3" -c "import json, sys; o = json.load(open(sys.argv[1]))['rma_orderings']
print(o); sys.exit(not (o['count'] == 48 and o['violated_raw'] > 0 and o['violated_after'] == 0))" \
    "$tmp/like-rma.out/report.json" >"$tmp/like-rma.orderings" 2>&1
ok $? "Score-P layout, rma: every put ordered before its target's closing fence, none violated after the merge ($(cat "$tmp/like-rma.orderings"))"
# PSCW: every origin's complete ordered before its target's wait returns,
# 8 x 6 orderings, from 96 notifications (a NOTIFY_OUT and a NOTIFY_IN per
# epoch: none of rank 0's failed MPI_Win_test), some violated by the
# skewed clocks, none after the merge; and in the copy itself (its times
# as the merge's): every complete entered before its target's wait returns
"$PYTHON3" -c "import json, sys; o = json.load(open(sys.argv[1]))['rma_orderings']; i = json.load(open(sys.argv[2]))
print(o, i['pscw_notifications'], 'notifications,', i['pscw_completes_unordered'], 'completes unordered')
sys.exit(not (o['count'] == 48 and o['violated_raw'] > 0 and o['violated_after'] == 0
              and i['pscw_notifications'] == 96 and i['pscw_completes_unordered'] == 0))" \
    "$tmp/like-pscw.out/report.json" "$tmp/like-pscw.out/input.json" >"$tmp/like-pscw.orderings" 2>&1
ok $? "Score-P layout, pscw: every complete ordered before its target's wait returns, none violated after the merge ($(cat "$tmp/like-pscw.orderings"))"
"$PYTHON3" "$check/pscw_order_check.py" "$tmp/like-pscw/traces.otf2" >"$tmp/pscw-in.order" 2>&1 \
    && "$PYTHON3" "$check/pscw_order_check.py" "$tmp/like-pscw.out/traces.otf2" >"$tmp/pscw-out.order" 2>&1 \
    && grep -q "^pairs 48 violated [1-9]" "$tmp/pscw-in.order" && grep -q "^pairs 48 violated 0$" "$tmp/pscw-out.order"
ok $? "Score-P layout, pscw: in the copy every MPI_Win_complete is entered before its target's wait returns (input: $(cat "$tmp/pscw-in.order"); copy: $(cat "$tmp/pscw-out.order"))"

# the raw trace the conversion made (kept): each NOTIFY_OUT right after its
# MPI_Win_complete's Enter, at its time (not the later RmaGroupSync's),
# each NOTIFY_IN at the end of a wait or a successful test, as our tracer
# writes them
SYNCTRACE_KEEP_WORK=1 "$SYNCTRACE_BIN" merge "$tmp/like-pscw" -o "$tmp/pscw-kept" --no-causal >/dev/null 2>"$tmp/pscw-kept.err"
for a in "$tmp"/pscw-kept.work-*/raw/rank-*.otf2; do otf2-print "$a"; done 2>&1 | awk '
    $1 == "ENTER" { region = $(NF - 1); prev_t = $3; prev = "enter" region; next }
    $1 == "RMA_SYNC" && /NOTIFY_OUT/ { out++; if (prev != "enter\"MPI_Win_complete\"" || $3 != prev_t) bad++; next }
    $1 == "RMA_SYNC" && /NOTIFY_IN/ { in_++; if (region != "\"MPI_Win_wait\"" && region != "\"MPI_Win_test\"") bad++; prev = ""; next }
    $1 ~ /^[A-Z_]+$/ { prev = "" }
    END { printf "%d NOTIFY_OUT, %d NOTIFY_IN, %d misplaced\n", out, in_, bad; exit !(out == 48 && in_ == 48 && bad == 0) }' \
    >"$tmp/pscw-kept.raw"
ok $? "Score-P layout, pscw: the raw trace's notifications where our tracer writes them ($(cat "$tmp/pscw-kept.raw"))"
rm -rf "$tmp"/pscw-kept.work-*

# the checker itself: a copy with the raw, unsynchronised times (ClockOffsets
# dropped, milliseconds of skew) has messages going backwards, and it says so
"$top_builddir/tests/otf2copy_run" "$top_srcdir/tests/data/scorep/stencil/scorep/traces.otf2" "$tmp/unsynced" \
    --shift-drop 0 >/dev/null 2>&1
"$PYTHON3" "$check/foreign_check.py" "$top_srcdir/tests/data/scorep/stencil/scorep/traces.otf2" \
    "$tmp/unsynced/traces.otf2" >"$tmp/unsynced.check" 2>&1
grep -q "^not ok - no message goes backwards in the copy ([0-9]* matched, [1-9]" "$tmp/unsynced.check"
ok $? "foreign_check.py finds the messages going backwards in an unsynchronised copy: $(grep backwards "$tmp/unsynced.check" | head -1)"

# any OTF2 archive: one of our merged archives (its clock starts at 0, no
# ClockOffsets), its times then placed by its messages alone
"$top_builddir/synctrace-gen" "$tmp/gen" --ranks 6 --pattern stencil2d --iterations 300 >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$tmp/gen" -o "$tmp/genm" --no-causal >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$tmp/genm/traces.otf2" -o "$tmp/genf" >"$tmp/genf.log" 2>&1 \
    && "$PYTHON3" "$check/foreign_check.py" "$tmp/genm/traces.otf2" "$tmp/genf/traces.otf2" >"$tmp/genf.check" 2>&1 \
    && [ "$(grep -c '^ok' "$tmp/genf.check")" = 5 ]
ok $? "a merged archive of ours as input: copied, in order, no message backwards $(grep -v '^ok' "$tmp/genf.check" "$tmp/genf.log" 2>/dev/null | grep -v '^{' | tail -c 300)"

# --clock-domain node: one clock for the node's processes (the traces ran on one)
d=$top_srcdir/tests/data/scorep/stencil
"$SYNCTRACE_BIN" merge "$d/scorep" -o "$tmp/node" --clock-domain node >"$tmp/node.log" 2>&1 \
    && grep -q '"clock_domains": "node"' "$tmp/node/input.json" \
    && [ "$("$PYTHON3" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['domains']))" "$tmp/node/report.json")" = 1 ]
ok $? "--clock-domain node: the 4 processes of one node share one clock domain $(tail -c 200 "$tmp/node.log")"
"$SYNCTRACE_BIN" merge "$d/scorep/traces.otf2" -o "$tmp/anchor" >"$tmp/anchor.log" 2>&1
ok $? "the anchor file itself as INPUT $(tail -c 200 "$tmp/anchor.log")"
# the conversion's threads (one reader each, processes taken in turn)
# change nothing: one thread and three give the same copy, to the record
h=$top_srcdir/tests/data/scorep/hybrid/scorep
"$SYNCTRACE_BIN" merge "$h" -o "$tmp/jobs1" --jobs 1 >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$h" -o "$tmp/jobs3" --jobs 3 >/dev/null 2>&1 \
    && otf2-print "$tmp/jobs1/traces.otf2" >"$tmp/jobs1.print" 2>&1 && otf2-print "$tmp/jobs3/traces.otf2" >"$tmp/jobs3.print" 2>&1 \
    && cmp -s "$tmp/jobs1.print" "$tmp/jobs3.print"
ok $? "--jobs 1 and --jobs 3 convert to the same copy ($(wc -l <"$tmp/jobs1.print") lines of otf2-print)"
# the copy's threads (a reader each, locations taken in turn, one archive
# written by all): the 1,024 locations of 256 processes on one thread and on four give the same
# copy, every record, definition and anchor line (its random trace id
# aside), and the same input.json; the plain copy too
pa() { otf2-print -A -M -C "$1" 2>&1 | grep -v '^Trace identifier'; }
g=$tmp/like-whole
"$SYNCTRACE_BIN" merge "$g" -o "$tmp/like1" --jobs 1 --no-causal >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$g" -o "$tmp/like4" --jobs 4 --no-causal >/dev/null 2>&1 \
    && pa "$tmp/like1/traces.otf2" >"$tmp/like1.print" && pa "$tmp/like4/traces.otf2" >"$tmp/like4.print" \
    && cmp -s "$tmp/like1.print" "$tmp/like4.print" && cmp -s "$tmp/like1/input.json" "$tmp/like4/input.json" \
    && [ "$(grep -c '^ENTER' "$tmp/like1.print")" -gt 1000 ]
ok $? "Score-P layout: --jobs 1 and --jobs 4 copy the 1,024 locations alike ($(wc -l <"$tmp/like1.print") lines of otf2-print -A -M -C) $(cmp "$tmp/like1.print" "$tmp/like4.print" 2>&1 | head -c 200)"
mkdir -p "$tmp/plain1" "$tmp/plain4"
"$top_builddir/tests/otf2copy_run" "$g/traces.otf2" "$tmp/plain1" --jobs 1 >"$tmp/plain1.out" 2>&1 \
    && "$top_builddir/tests/otf2copy_run" "$g/traces.otf2" "$tmp/plain4" --jobs 4 >"$tmp/plain4.out" 2>&1 \
    && pa "$tmp/plain1/traces.otf2" >"$tmp/plain1.print" && pa "$tmp/plain4/traces.otf2" >"$tmp/plain4.print" \
    && cmp -s "$tmp/plain1.print" "$tmp/plain4.print" && cmp -s "$tmp/plain1.out" "$tmp/plain4.out" \
    && cmp -s <(pa "$g/traces.otf2") "$tmp/plain1.print"
ok $? "Score-P layout: the plain copy on 1 and on 4 threads is the input, to the otf2-print line ($(cat "$tmp/plain4.out"))"
"$SYNCTRACE_BIN" merge "$d/scorep" -o "$tmp/bad" --clock-domain cluster >/dev/null 2>"$tmp/bad.err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ]
ok $? "--clock-domain takes process or node: $(cat "$tmp/bad.err")"

# bad input: one line naming the file, non-zero, no OUT, nothing left
bad_input() {
    local label=$1 input=$2
    mkdir -p "$tmp/failed"
    "$SYNCTRACE_BIN" merge "$input" -o "$tmp/failed/OUT" >"$tmp/fail.out" 2>"$tmp/fail.err"
    local rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/fail.err")" -eq 1 ] && grep -q "$3" "$tmp/fail.err" \
        && [ -z "$(ls "$tmp/failed")" ]
    ok $? "$label: refused in one line (exit $rc): $(head -c 300 "$tmp/fail.err")"
}
echo "not an archive" >"$tmp/junk.otf2"
bad_input "a file that is no OTF2 archive" "$tmp/junk.otf2" "junk.otf2"
cp -r "$d/scorep" "$tmp/cut"
evt=$(ls "$tmp/cut/traces/"*.evt | head -1)
head -c 2000 "$evt" >"$evt.part" && mv "$evt.part" "$evt"
bad_input "an event file cut short" "$tmp/cut" "traces.otf2"
cp -r "$d/scorep" "$tmp/nodefs"
rm "$tmp/nodefs/traces.def"
bad_input "no global definitions" "$tmp/nodefs" "traces.otf2"
# a location's event count that lies (the definitions say more than there are)
cp -r "$d/scorep" "$tmp/short"
rm "$tmp/short/traces/1.evt"
bad_input "a location's event file missing" "$tmp/short" "traces.otf2"
bad_input "one rank archive of our raw trace" "$tmp/gen/rank-000001.otf2" "merge the trace's directory"
finish
