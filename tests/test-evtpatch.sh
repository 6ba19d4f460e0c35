#!/bin/bash
# The copy's in-place rewrite of event files (tools/foreign/evtpatch.h):
# on archives that exercise OTF2's whole event framing (many chunks, long
# records, the one-integer records with undefined values, shared
# timestamps, an empty location; tests/checkers/otf2_framing.py) and on the
# Score-P traces, what it writes is, byte for byte, what OTF2's reader and
# writer write, with a time map and without; where it cannot be certain (events
# sharing a timestamp given different times, damaged files) it leaves the
# location to OTF2, and the result, error or copy, is the same; the merge
# of a foreign archive uses it.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 14
run="$top_builddir/tests/otf2copy_run"
tmp=$(scratch)
"$PYTHON3" "$top_srcdir/tests/checkers/otf2_framing.py" "$tmp/fr" >"$tmp/fr.gen" 2>&1
ok $? "otf2_framing.py wrote its archive $(tail -c 300 "$tmp/fr.gen")"
chunks=$(($(stat -c %s "$tmp/fr/traces/0.evt") / 262144 + 1))

# both IN and OPTIONS: the copy through OTF2 into A, in place into B;
# prints the differences (nothing: the same event files, byte for byte,
# the same otf2-print, the same counts but in_place)
pa() { otf2-print -A -M -C "$1" 2>&1 | grep -v '^Trace identifier'; }
both() {
    local in=$1 name=$2 f
    shift 2
    rm -rf "$tmp/$name.a" "$tmp/$name.b" && mkdir -p "$tmp/$name.a" "$tmp/$name.b"
    "$run" "$in" "$tmp/$name.a" "$@" >"$tmp/$name.a.out" 2>&1 || echo "through OTF2 failed: $(cat "$tmp/$name.a.out")"
    "$run" "$in" "$tmp/$name.b" --in-place "$@" >"$tmp/$name.b.out" 2>&1 || echo "in place failed: $(cat "$tmp/$name.b.out")"
    for f in "$tmp/$name.a"/traces/*.evt; do
        cmp -s "$f" "$tmp/$name.b/traces/${f##*/}" || echo "${f##*/} differs"
    done
    cmp -s <(sed 's/ in_place=[0-9]*//' "$tmp/$name.a.out") <(sed 's/ in_place=[0-9]*//' "$tmp/$name.b.out") || echo "the counts differ"
    cmp -s <(pa "$tmp/$name.a/traces.otf2") <(pa "$tmp/$name.b/traces.otf2") || echo "otf2-print differs"
}
in_place() { grep -o 'in_place=[0-9]*' "$tmp/$1.b.out" | cut -d= -f2; }

fr=$tmp/fr/traces.otf2
d=$(both "$fr" exact)
[ -z "$d" ] && [ "$(in_place exact)" = 4 ]
ok $? "framing archive ($chunks chunks a location), exact copy: in place on all 4 locations, the same as through OTF2 $d"
for f in "$tmp/fr/traces"/*.evt; do cmp -s "$f" "$tmp/exact.b/traces/${f##*/}" || echo "${f##*/}"; done >"$tmp/exact.diff"
[ ! -s "$tmp/exact.diff" ]
ok $? "framing archive, exact copy in place: every event file the input's, byte for byte $(cat "$tmp/exact.diff")"
d=$(both "$fr" shifted --shift-drop 123456789)
[ -z "$d" ] && [ "$(in_place shifted)" = 4 ]
ok $? "framing archive, every time 123456789 ns later: in place on all 4, the same as through OTF2 $d"
# events sharing a timestamp given different times: only the locations
# of one event or none are rewritten, the others go through OTF2 from
# their first event again
d=$(both "$fr" stretched --stretch 5)
[ -z "$d" ] && [ "$(in_place stretched)" = 2 ]
ok $? "framing archive, shared timestamps pulled apart: 2 locations in place ($(in_place stretched)), 2 through OTF2, the same as all through OTF2 $d"
for t in stencil hybrid; do
    d=$(both "$top_srcdir/tests/data/scorep/$t/scorep/traces.otf2" "$t" --shift-drop 1000 --jobs 3)
    n=$(ls "$top_srcdir/tests/data/scorep/$t/scorep/traces"/*.evt | wc -l)
    [ -z "$d" ] && [ "$(in_place "$t")" = "$n" ]
    ok $? "Score-P $t, times moved, 3 threads: in place on all $n locations ($(in_place "$t")), the same as through OTF2 $d"
done

# damage: every case gives what the copy through OTF2 gives (the same
# exit status and message; no copy either way, or the same copy)
damaged() {   # NAME: the damaged archive in $tmp/NAME, copied both ways
    local name=$1 rca rcb
    rm -rf "$tmp/$name.a" "$tmp/$name.b" && mkdir -p "$tmp/$name.a" "$tmp/$name.b"
    timeout 60 "$run" "$tmp/$name/traces.otf2" "$tmp/$name.a" >"$tmp/$name.a.out" 2>"$tmp/$name.a.err"
    rca=$?
    timeout 60 "$run" "$tmp/$name/traces.otf2" "$tmp/$name.b" --in-place >"$tmp/$name.b.out" 2>"$tmp/$name.b.err"
    rcb=$?
    [ $rca = $rcb ] && cmp -s "$tmp/$name.a.err" "$tmp/$name.b.err" && [ $rca = 1 ] && [ "$(wc -l <"$tmp/$name.a.err")" = 1 ]
}
for cut in 3000 262144 300000; do
    rm -rf "$tmp/cut$cut" && cp -r "$tmp/fr" "$tmp/cut$cut"
    truncate -s $cut "$tmp/cut$cut/traces/1.evt"
    damaged "cut$cut"
    ok $? "event file cut at byte $cut: refused as through OTF2, one line: $(head -c 200 "$tmp/cut$cut.b.err")"
done
# a record type no OTF2 knows, in the second chunk: OTF2 refuses the copy
# (it would lose the record), and so does the copy in place
rm -rf "$tmp/odd" && cp -r "$tmp/fr" "$tmp/odd"
"$PYTHON3" - "$tmp/odd/traces/0.evt" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = 262144 + 18 + 9            # the second chunk: its header, its timestamp, a record
assert b[i] >= 6, b[i]        # a record (here an attribute list) made one of type 200
b[i] = 200
open(p, "wb").write(b)
EOF
damaged odd
ok $? "a record of an unknown type: refused as through OTF2, one line: $(head -c 200 "$tmp/odd.b.err")"

# the merge of a foreign archive rewrites in place, and gives what it
# gives through OTF2 (SYNCTRACE_COPY=records)
in=$top_srcdir/tests/data/scorep/stencil/scorep
"$SYNCTRACE_BIN" merge "$in" -o "$tmp/m.fast" >"$tmp/m.fast.out" 2>&1 &&
    SYNCTRACE_COPY=records "$SYNCTRACE_BIN" merge "$in" -o "$tmp/m.rec" >"$tmp/m.rec.out" 2>&1
ok $? "Score-P stencil merged both ways $(tail -c 200 "$tmp/m.fast.out")"
"$PYTHON3" -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sys.exit(not (a['locations_in_place'] == a['locations'] == 4 and b['locations_in_place'] == 0))" \
    "$tmp/m.fast/input.json" "$tmp/m.rec/input.json"
ok $? "the merge rewrote all 4 locations in place, through OTF2 none ($(grep -o '([0-9]* locations. events rewritten in place)' "$tmp/m.fast.out"))"
for f in "$tmp/m.rec"/traces/*.evt; do cmp -s "$f" "$tmp/m.fast/traces/${f##*/}" || echo "${f##*/}"; done >"$tmp/m.diff"
[ ! -s "$tmp/m.diff" ] && cmp -s <(pa "$tmp/m.rec/traces.otf2") <(pa "$tmp/m.fast/traces.otf2")
ok $? "the merge's copy in place is the one through OTF2, byte for byte $(cat "$tmp/m.diff")"
finish
