#!/bin/bash
# tools/foreign's copy of an OTF2 archive (otf2copy.h) on real Score-P
# traces (tests/data/scorep): record for record, as otf2-print shows
# them, nothing lost, added or reordered; timestamps moved exactly as the
# time map says; the per-record code current with the installed OTF2's
# headers; a damaged archive refused in one line, nothing presented as
# complete.
. "$top_srcdir/tests/lib.sh"
traces="hybrid stencil"
plan $((2 + 13 * 2 + 3))
: "${PYTHON3:=python3}"
tmp=$(scratch)
run="$top_builddir/tests/otf2copy_run"
check="$top_srcdir/tests/checkers/otf2copy_check.py"

"$PYTHON3" "$top_srcdir/tools/foreign/gen-otf2copy.py" "${OTF2_INCLUDEDIR:-/usr/include/otf2}" "$tmp/records.c" \
    >"$tmp/gen.err" 2>&1 && cmp -s "$tmp/records.c" "$top_srcdir/tools/foreign/otf2copy_records.c"
ok $? "tools/foreign/otf2copy_records.c is what gen-otf2copy.py makes of the installed OTF2's headers (make regen-otf2copy)$(head -c 200 "$tmp/gen.err")"
kinds=$(grep -o 'oc_record_kinds\[3\] = { [0-9, ]* }' "$top_srcdir/tools/foreign/otf2copy_records.c")
events=$(grep -c 'typedef OTF2_CallbackCode' "${OTF2_INCLUDEDIR:-/usr/include/otf2}/OTF2_EvtReaderCallbacks.h")
# every event kind but Unknown has a copy
[ "${kinds#*= \{ }" != "$kinds" ] && [ "$(echo "$kinds" | sed 's/.*{ \([0-9]*\),.*/\1/')" -eq $((events - 1)) ]
ok $? "every event record kind OTF2 reads is copied ($kinds; the header has $((events - 1)) besides Unknown)"

print() { otf2-print -A -M -C "$1" >"$2" 2>"$2.err"; }
for t in $traces; do
    in="$top_srcdir/tests/data/scorep/$t/scorep/traces.otf2"
    d=$tmp/$t
    mkdir -p "$d/exact" "$d/kept" "$d/raw" "$d/shifted"
    print "$in" "$d/in.p"
    "$run" "$in" "$d/exact" >"$d/exact.out" 2>&1
    ok $? "$t: copied ($(cat "$d/exact.out"))"
    print "$d/exact/traces.otf2" "$d/exact.p"
    [ ! -s "$d/exact.p.err" ] && "$PYTHON3" "$check" "$d/in.p" "$d/exact.p" 0 >"$d/exact.check"
    ok $? "$t: the exact copy, otf2-print'ed, is the input: $(grep -c '^ok' "$d/exact.check") of 5 checks $(grep -v '^ok' "$d/exact.check" | head -c 300)"
    # the time map's path, with the ClockOffsets kept and no shift: the same
    "$run" "$in" "$d/kept" --shift 0 >/dev/null 2>&1 && print "$d/kept/traces.otf2" "$d/kept.p" &&
        "$PYTHON3" "$check" "$d/in.p" "$d/kept.p" 0 >"$d/kept.check"
    ok $? "$t: through a time map (the identity), the same $(grep -v '^ok' "$d/kept.check" | head -c 300)"
    # ClockOffsets dropped: every other record as before
    "$run" "$in" "$d/raw" --shift-drop 0 >"$d/raw.out" 2>&1 && print "$d/raw/traces.otf2" "$d/raw.p" &&
        "$PYTHON3" "$check" "$d/in.p" "$d/raw.p" 0 --dropped >"$d/raw.check"
    ok $? "$t: the ClockOffsets dropped, every other record copied in order ($(grep -o 'offsets_dropped=[0-9]*' "$d/raw.out")) $(grep -v '^ok' "$d/raw.check" | head -c 300)"
    grep -q 'offsets_dropped=[1-9]' "$d/raw.out"
    ok $? "$t: the input has ClockOffsets to drop"
    # every timestamp moved: against the copy without ClockOffsets (its raw times)
    "$run" "$in" "$d/shifted" --shift-drop 123456789 >/dev/null 2>&1 && print "$d/shifted/traces.otf2" "$d/shifted.p" &&
        "$PYTHON3" "$check" "$d/raw.p" "$d/shifted.p" 123456789 >"$d/shifted.check"
    ok $? "$t: every timestamp 123456789 ns later, nothing else changed $(grep -v '^ok' "$d/shifted.check" | head -c 300)"
    grep -q "^ok - every timestamp 123456789 ns later" "$d/shifted.check"
    ok $? "$t: the timestamps were compared"
    # the checker sees a lost, an added and a moved event
    awk '/^ENTER/ && !done { done = 1; next } { print }' "$d/exact.p" >"$d/lost.p"
    ! "$PYTHON3" "$check" "$d/in.p" "$d/lost.p" 0 >/dev/null
    ok $? "$t: the checker fails on a lost event"
    awk '/^LEAVE/ && !done { print; done = 1 } { print }' "$d/exact.p" >"$d/added.p"
    ! "$PYTHON3" "$check" "$d/in.p" "$d/added.p" 0 >/dev/null
    ok $? "$t: the checker fails on an added event"
    awk '/^ENTER/ && !done { done = 1; sub(/[0-9]+  Region/, "1  Region") } { print }' "$d/exact.p" >"$d/moved.p"
    ! "$PYTHON3" "$check" "$d/in.p" "$d/moved.p" 0 >/dev/null
    ok $? "$t: the checker fails on a changed timestamp"
    # the input is never touched
    [ -z "$(find "$top_srcdir/tests/data/scorep/$t" -newer "$d/in.p")" ]
    ok $? "$t: the input is unchanged"
    n_in=$(ls "$top_srcdir/tests/data/scorep/$t/scorep/traces"/*.evt | wc -l)
    n_out=$(ls "$d/exact/traces"/*.evt | wc -l)
    [ "$n_in" -eq "$n_out" ] && [ "$n_in" -gt 0 ]
    ok $? "$t: an event file per location, as in the input ($n_out of $n_in)"
    # on three threads (a reader each, one archive written by all): the
    # same copies, to the otf2-print line (the archive's random id aside)
    mkdir -p "$d/exact3" "$d/raw3"
    pa() { otf2-print -A -M -C "$1" 2>&1 | grep -v '^Trace identifier'; }
    "$run" "$in" "$d/exact3" --jobs 3 >"$d/exact3.out" 2>&1 && "$run" "$in" "$d/raw3" --shift-drop 0 --jobs 3 >"$d/raw3.out" 2>&1 \
        && cmp -s <(pa "$d/exact/traces.otf2") <(pa "$d/exact3/traces.otf2") && cmp -s "$d/exact.out" "$d/exact3.out" \
        && cmp -s <(pa "$d/raw/traces.otf2") <(pa "$d/raw3/traces.otf2") && cmp -s "$d/raw.out" "$d/raw3.out"
    ok $? "$t: --jobs 3 makes the same copies, exact and through a time map ($(cat "$d/exact3.out"))"
done

# damage: a cut event file, and an anchor that is not one
cp -r "$top_srcdir/tests/data/scorep/stencil/scorep" "$tmp/bad"
f=$(ls "$tmp"/bad/traces/*.evt | head -1)
head -c 3000 "$f" >"$f.cut" && mv "$f.cut" "$f"
mkdir -p "$tmp/badout"
timeout 30 "$run" "$tmp/bad/traces.otf2" "$tmp/badout" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && grep -q "traces.otf2" "$tmp/bad.err"
ok $? "a cut event file: exit $rc, one line naming the archive: $(head -c 300 "$tmp/bad.err")"
# two locations damaged (neither the first: their readers had read
# before, and OTF2 decoded a part of each without a word), copied on one
# thread and on four: refused, the first of them in the archive's order
# named, alike
cp -r "$top_srcdir/tests/data/scorep/stencil/scorep" "$tmp/bad2"
for l in 1 3; do
    head -c 3000 "$tmp/bad2/traces/$l.evt" >"$tmp/cut" && mv "$tmp/cut" "$tmp/bad2/traces/$l.evt"
done
mkdir -p "$tmp/bad2out1"
timeout 30 "$run" "$tmp/bad2/traces.otf2" "$tmp/bad2out1" --jobs 1 >/dev/null 2>"$tmp/bad2.err1"
same=0
for i in 1 2 3; do
    rm -rf "$tmp/bad2out4" && mkdir -p "$tmp/bad2out4"
    timeout 30 "$run" "$tmp/bad2/traces.otf2" "$tmp/bad2out4" --jobs 4 >/dev/null 2>"$tmp/bad2.err4"
    [ $? -eq 1 ] && cmp -s "$tmp/bad2.err1" "$tmp/bad2.err4" && same=$((same + 1))
done
[ $same -eq 3 ] && [ "$(wc -l <"$tmp/bad2.err1")" -eq 1 ] && grep -q "location 1\b" "$tmp/bad2.err1"
ok $? "two cut event files on four threads: the first location named, as on one ($same of 3 alike): $(head -c 300 "$tmp/bad2.err4")"
echo "not an archive" >"$tmp/none.otf2"
mkdir -p "$tmp/noneout"
timeout 30 "$run" "$tmp/none.otf2" "$tmp/noneout" >/dev/null 2>"$tmp/none.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/none.err")" -eq 1 ]
ok $? "not an OTF2 anchor file: exit $rc, one line: $(head -c 300 "$tmp/none.err")"
finish
