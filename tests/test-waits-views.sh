#!/bin/bash
# The waits where users look (issue 36): `synctrace waits --json` writes
# every instance it counted (OUT/waits-instances.bin); per (pattern, rank)
# their sums are waits.json's; the HTML page embeds them and shades them
# (its self-test in headless Chromium: all shaded, none with the toggle
# off, all again on), their durations summing to waits.json's seconds; the
# Chrome trace parses, stays valid (tests/checkers/chrome_check.py) and its
# "wait" slices sum to the same; libsynctrace-causal's reader
# (tests/waits_rows) returns waits.json's rows as Python parses them.
# Without the file, or with a stale one, the views are as before; the
# reader's errors are one line naming the file and what is wrong.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 58
tmp=$(scratch)
check="$top_srcdir/tests/checkers/waits_views_check.py"
rows=$top_builddir/tests/waits_rows
chromium=$(command -v chromium || command -v chromium-browser || true)
pyotf2=""
for p in /usr/bin/python3 python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
selftest() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 \
        --dump-dom "file://$1#selftest" 2>/dev/null | sed -n 's/.*SELFTEST \({.*}\).*/\1/p'
}
st() { "$PYTHON3" -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {'d': d}))" "$1" "$2" 2>/dev/null; }

# views RUN LABEL: waits, both exports, the checker (4 + 10 + 1 lines)
views() {
    local out=$1 label=$2
    "$SYNCTRACE_BIN" waits "$out" --json >"$out.waits" 2>&1
    ok $([ $? = 0 ] && [ -s "$out/waits-instances.bin" ] && ! ls "$out"/*.tmp-* >/dev/null 2>&1; echo $?) \
        "$label: waits --json writes waits.json and waits-instances.bin ($(stat -c %s "$out/waits-instances.bin" 2>/dev/null) bytes), no temporary left"
    local t0=$(date +%s%N)
    "$SYNCTRACE_BIN" export "$out" --format html >/dev/null 2>"$out.html.err"
    ok $? "$label: export --format html ($(( ($(date +%s%N) - t0) / 1000000 )) ms; $(cat "$out.html.err"))"
    "$SYNCTRACE_BIN" export "$out" --format chrome >/dev/null 2>"$out.chrome.err"
    ok $? "$label: export --format chrome ($(cat "$out.chrome.err"))"
    "$rows" "$out" >"$out.rows" 2>"$out.rows.err"
    ok $? "$label: the C reader reads waits.json ($(cat "$out.rows.err"))"
    "$PYTHON3" "$check" "$out" --html "$out/timeline.html" --chrome "$out/trace.json" --rows "$out.rows" >"$out.check" 2>&1
    n=$(grep -c '^\(not \)\?ok - ' "$out.check")
    tap_from_checker "$label: " "$out.check"
    for i in $(seq $((n + 1)) 10); do ok 1 "$label: the checker stopped early ($(tail -1 "$out.check"))"; done
    if [ -n "$pyotf2" ]; then
        "$pyotf2" "$check" "$out" --calls "$out/traces.otf2" >"$out.calls" 2>&1
        tap_from_checker "$label: " "$out.calls"
        grep -q '^\(not \)\?ok - ' "$out.calls" || ok 1 "$label: the calls check said nothing ($(tail -1 "$out.calls"))"
    else
        skip "$label: no python3 with otf2"
    fi
}

prog=$(build_mpi mpi_waits "$tmp")
export SYNCTRACE_SKEW=seed=5,offset_us=3000,drift_ppm=50
run_traced "$tmp/lr" 3 "$prog" late_receiver 5 3 >/dev/null 2>&1 &&
    "$SYNCTRACE_BIN" merge "$tmp/lr" -o "$tmp/lr.out" >/dev/null 2>&1
ok $? "late_receiver (MPI_Ssend to a sleeping receiver, 3 ranks) traced and merged"
views "$tmp/lr.out" late_receiver

# PSCW with operations: Early Wait from the target's MPI_Win_wait entry, Late
# Complete its end (their differences end on an origin, not the waiting rank)
run_traced "$tmp/lc" 4 "$prog" late_complete 5 2 >/dev/null 2>&1 &&
    "$SYNCTRACE_BIN" merge "$tmp/lc" -o "$tmp/lc.out" >/dev/null 2>&1
ok $? "late_complete (post/start/put/complete/wait, 4 ranks) traced and merged"
views "$tmp/lc.out" late_complete

stencil=$top_builddir/examples/stencil
run_traced "$tmp/ex" 4 "$stencil" -i 30 >/dev/null 2>&1 && "$SYNCTRACE_BIN" merge "$tmp/ex" -o "$tmp/ex.out" >/dev/null 2>&1
ok $? "the bundled stencil (Isend/Irecv/Waitall, Allreduce; 4 ranks) traced and merged"
views "$tmp/ex.out" stencil

# the page's own view: every embedded wait shaded, the toggle takes them off and back
page=$tmp/ex.out/timeline.html
if [ -z "$chromium" ]; then
    for i in 1 2; do skip "chromium not installed"; done
else
    res=$(selftest "$page")
    diag "selftest: $(st "$res" "d.get('waits')")"
    want=$("$PYTHON3" -c "import json,sys; w=json.load(open(sys.argv[1])); print(round(sum(r['seconds'] for r in w['waits']) * 1e9))" "$tmp/ex.out/waits.json")
    ok $([ "$(st "$res" "d['errors'] == [] and d['waits']['toggle'] and not d['waits']['disabled'] and d['waits']['shadedOn'] == d['waits']['embedded'] > 0 and d['waits']['shadedOff'] == 0 and d['waits']['shadedBack'] == d['waits']['embedded']")" = True ]; echo $?) \
        "the page shades all $(st "$res" "d['waits']['shadedOn']") waits, none with the toggle off, all again on, no script error"
    ok $([ "$(st "$res" "abs(d['waits']['shadedNs'] - $want) <= d['waits']['embedded'] + 1")" = True ]; echo $?) \
        "the shaded waits take $(st "$res" "d['waits']['shadedNs']") ns, waits.json's seconds $want ns"
fi
[ -n "$pyotf2" ] && "$pyotf2" "$top_srcdir/tests/checkers/chrome_check.py" "$tmp/ex.out/trace.json" "$tmp/ex.out/report.json" \
    "$tmp/ex.out/traces.otf2" >"$tmp/chrome.check" 2>&1
ok $([ -n "$pyotf2" ] && ! grep -q '^not ok' "$tmp/chrome.check" && grep -q '^ok' "$tmp/chrome.check"; echo $?) \
    "the Chrome trace with waits passes chrome_check.py ($(grep -c '^ok' "$tmp/chrome.check") checks)"

# without waits-instances.bin, or with a stale one: the views as before
cp -r "$tmp/ex.out" "$tmp/none.out"
rm "$tmp/none.out/waits-instances.bin"
"$SYNCTRACE_BIN" export "$tmp/none.out" --format html >/dev/null 2>"$tmp/none.err" &&
    "$SYNCTRACE_BIN" export "$tmp/none.out" --format chrome >/dev/null 2>>"$tmp/none.err"
ok $([ $? = 0 ] && ! grep -q '"cat":"wait"' "$tmp/none.out/trace.json" && grep -q '"waits":null,"waitsNote":"no waits-instances.bin' "$tmp/none.out/timeline.html"; echo $?) \
    "without waits-instances.bin: both exports succeed, no waits in them, the page says why"
if [ -n "$chromium" ]; then
    res=$(selftest "$tmp/none.out/timeline.html")
    ok $([ "$(st "$res" "d['errors'] == [] and d['waits']['disabled'] and d['waits']['shadedOn'] == 0 and d['rowsShown'] == 4")" = True ]; echo $?) \
        "without waits the page works as before: every rank drawn, the toggle disabled, no script error"
else
    skip "chromium not installed"
fi
cp "$tmp/ex.out/waits-instances.bin" "$tmp/none.out/" && touch -d '+1 minute' "$tmp/none.out/traces.otf2"
"$SYNCTRACE_BIN" export "$tmp/none.out" --format chrome >/dev/null 2>"$tmp/stale.err"
ok $([ $? = 0 ] && grep -q "waits-instances.bin: stale" "$tmp/stale.err" && ! grep -q '"cat":"wait"' "$tmp/none.out/trace.json"; echo $?) \
    "a stale waits-instances.bin (traces.otf2 changed since): a warning, the export without waits ($(head -1 "$tmp/stale.err" | cut -c1-90))"

# the C reader's errors: one line naming the file and what is wrong
"$rows" "$tmp/nothing" >/dev/null 2>"$tmp/r1"
ok $([ $? = 1 ] && [ "$(wc -l <"$tmp/r1")" = 1 ] && grep -q "nothing/waits.json: No such file" "$tmp/r1"; echo $?) \
    "the reader on a missing waits.json: $(cat "$tmp/r1")"
head -c 300 "$tmp/ex.out/waits.json" >"$tmp/none.out/waits.json"
"$rows" "$tmp/none.out" >/dev/null 2>"$tmp/r2"
ok $([ $? = 1 ] && [ "$(wc -l <"$tmp/r2")" = 1 ] && grep -q "waits.json: not JSON" "$tmp/r2"; echo $?) \
    "the reader on a cut waits.json: $(cat "$tmp/r2")"
"$PYTHON3" -c "import json,sys; w=json.load(open(sys.argv[1])); del w['waits'][1]['seconds']; w['waits'][0]['region'] = 'a \"quoted\"\\u0001 region'; json.dump(w, open(sys.argv[2], 'w'))" \
    "$tmp/ex.out/waits.json" "$tmp/none.out/waits.json"
"$rows" "$tmp/none.out" >/dev/null 2>"$tmp/r3"
ok $([ $? = 1 ] && grep -q 'waits\[1\]: "seconds" missing' "$tmp/r3"; echo $?) \
    "the reader on a row without seconds names the row and field: $(cat "$tmp/r3")"
"$PYTHON3" -c "import json,sys; w=json.load(open(sys.argv[1])); w['waits'][0]['region'] = 'a \"quoted\"\\u0001 region/\\u00e9'; json.dump(w, open(sys.argv[2], 'w'))" \
    "$tmp/ex.out/waits.json" "$tmp/none.out/waits.json"
"$rows" "$tmp/none.out" >"$tmp/none.rows" 2>/dev/null
"$PYTHON3" -c "import json,sys; a=json.loads(open(sys.argv[1]).readline()); b=json.load(open(sys.argv[2]))['waits'][0]; sys.exit(a['region'] != b['region'])" \
    "$tmp/none.rows" "$tmp/none.out/waits.json"
ok $? "the reader decodes escapes in names (quotes, a control character, non-ASCII) as Python does"
finish
