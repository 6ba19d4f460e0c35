#!/bin/bash
# synctrace export and report: the Chrome trace-event JSON is valid and
# complete (tests/checkers/chrome_check.py: format, µs timestamps, per-track order
# and nesting, every flow with both ends, exactly the messages of a
# brute-force matcher, counts equal the archive's); rawview.map reproduces
# every event's raw time (tests/checkers/rawview_check.py); the export's memory
# does not grow with the trace's length; the HTML page, loaded in headless
# Chromium with #selftest, runs without script errors, shows every rank,
# and toggling raw/synchronised takes the red tachyons from the report's
# raw count to zero; it plots cluster_sizes.csv or says "no causal index";
# bad input gets a one-line error; the merge shows progress only on a
# terminal; `synctrace report` is short and readable.
. "$top_srcdir/tests/lib.sh"
plan 96
: "${PYTHON3:=python3}"
GEN="$top_builddir/synctrace-gen"
tmp=$(scratch)
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
pyotf2=""
for p in /usr/bin/python3 python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
chromium=$(command -v chromium || command -v chromium-browser || true)

# check_chrome OUT LABEL: export and check against the archive (15 lines)
check_chrome() {
    local out=$1 label=$2
    "$SYNCTRACE_BIN" export "$out" --format chrome >"$out.export.out" 2>"$out.export.err"
    ok $? "$label: export --format chrome succeeds ($(cat "$out.export.err"))"
    if [ -z "$pyotf2" ]; then
        for i in $(seq 14); do skip "$label: python3-otf2 not installed"; done
        return
    fi
    "$pyotf2" "$top_srcdir/tests/checkers/chrome_check.py" "$out/trace.json" "$out/report.json" "$out/traces.otf2" >"$out.check" 2>&1
    tap_from_checker "$label: " "$out.check"
}

# check_rawview RAW OUT LABEL (3 lines)
check_rawview() {
    if [ -z "$pyotf2" ]; then
        for i in 1 2 3; do skip "$3: python3-otf2 not installed"; done
        return
    fi
    "$SYNCTRACE_BIN" dump "$1" >"$2.dump" &&
        "$pyotf2" "$top_srcdir/tests/checkers/rawview_check.py" "$2.dump" "$2/traces.otf2" "$2/rawview.map" >"$2.rvcheck" 2>&1
    tap_from_checker "$3: " "$2.rvcheck"
}

# selftest PAGE: the page's own checks, as JSON on stdout (empty if none ran)
selftest() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 \
        --dump-dom "file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")#selftest" 2>/dev/null |
        sed -n 's/.*SELFTEST \({.*}\).*/\1/p'
}

# 1. Generated: one sync round and drift, so the interpolated ClockOffsets
#    leave tachyons; a real traced run with wildcards, Sendrecv, probes and
#    cancelled requests; receives waited for in another order than posted
#    (pairing by completion order would fail); random peers received with
#    MPI_ANY_SOURCE.
"$GEN" "$tmp/t" --ranks 4 --pattern stencil2d --iterations 200 --sync-rounds 1 --drift-ppm 100 --compute-us 50 \
    --seed 5 >/dev/null
"$SYNCTRACE_BIN" merge "$tmp/t" -o "$tmp/t.out" >"$tmp/merge.out" 2>"$tmp/merge.err"
ok $? "merge of a generated trace with drift and one sync round"
ok $([ ! -s "$tmp/merge.err" ]; echo $?) "merge prints no progress when stderr is not a terminal"
raw=$(json "$tmp/t.out/report.json" "d['tachyons_raw']")
inputs() { find "$1" -type f ! -name timeline.html ! -name trace.json ! -name cluster_sizes.csv -exec md5sum {} + | sort | md5sum; }
before=$(inputs "$tmp/t.out")
ok $([ "$raw" -gt 0 ]; echo $?) "the trace has $raw tachyons as recorded (interpolated ClockOffsets)"
check_chrome "$tmp/t.out" "stencil2d"
check_rawview "$tmp/t" "$tmp/t.out" "stencil2d"

p2p=$(build_mpi mpi_p2p "$tmp")
SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=30 run_traced "$tmp/p" 4 "$p2p" >/dev/null 2>&1 &&
    "$SYNCTRACE_BIN" merge "$tmp/p" -o "$tmp/p.out" >/dev/null 2>&1
ok $? "traced point-to-point run (wildcards, Sendrecv, probes, cancel) merged"
check_chrome "$tmp/p.out" "mpi_p2p"

reorder=$(build_mpi mpi_reorder "$tmp")
run_traced "$tmp/o" 2 "$reorder" >"$tmp/o.stdout" 2>&1 && "$SYNCTRACE_BIN" merge "$tmp/o" -o "$tmp/o.out" >/dev/null 2>&1
ok $([ $? = 0 ] && [ "$(sort -u "$tmp/o.stdout")" = ok ]; echo $?) \
    "traced run whose receives complete out of posting order (and a cancelled one) merged"
check_chrome "$tmp/o.out" "reorder"

"$GEN" "$tmp/r" --ranks 6 --pattern random --iterations 300 --seed 3 >/dev/null &&
    "$SYNCTRACE_BIN" merge "$tmp/r" -o "$tmp/r.out" >/dev/null 2>&1
ok $? "generated random-peer trace (MPI_ANY_SOURCE) merged"
check_chrome "$tmp/r.out" "random"

# 2. Streaming: a 20 times longer trace needs no more memory.
# (m6000 is also the terminal check's trace below, so it is made either way)
for it in 300 6000; do
    "$GEN" "$tmp/m$it" --ranks 4 --iterations $it --seed 2 >/dev/null
    "$SYNCTRACE_BIN" merge "$tmp/m$it" -o "$tmp/m$it.out" >/dev/null 2>&1
done
if [ -x /usr/bin/time ]; then
    for it in 300 6000; do
        /usr/bin/time -f %M -o "$tmp/m$it.rss" "$SYNCTRACE_BIN" export "$tmp/m$it.out" --format chrome \
            -o "$tmp/m$it.json" 2>/dev/null
    done
    small=$(tail -1 "$tmp/m300.rss") big=$(tail -1 "$tmp/m6000.rss")
    ok $([ "$big" -le $((small + 4096)) ]; echo $?) \
        "chrome export memory does not grow with the trace: $small KB for 20k events, $big KB for 400k"
else
    skip "/usr/bin/time not installed"
fi
# ... but with the locations: OTF2's reader holds one event chunk of each,
# and the merge writes chunks of 256 KiB (1 MiB, OTF2's default, would
# take 300 MB for 300 locations).
"$GEN" "$tmp/wide" --ranks 300 --iterations 5 --seed 2 --no-true-time >/dev/null &&
    "$SYNCTRACE_BIN" merge "$tmp/wide" -o "$tmp/wide.out" --no-causal >/dev/null 2>&1
chunk=$(otf2-print -A "$tmp/wide.out/traces.otf2" 2>/dev/null | awk '/Chunk size events/ { print $4 }')
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f %M -o "$tmp/wide.rss" "$SYNCTRACE_BIN" export "$tmp/wide.out" --format chrome \
        -o "$tmp/wide.json" 2>/dev/null
    rss=$(tail -1 "$tmp/wide.rss")
    ok $([ "$chunk" = 262144 ] && [ "$rss" -le $((150 * 1024)) ]; echo $?) \
        "300 locations: event chunks of $chunk bytes, the export takes $rss KB (at most 150 MB)"
else
    skip "/usr/bin/time not installed"
fi

# 3. The HTML page in headless Chromium.
printf 'max_cluster_size,self_organizing,contiguous,fidge_mattern\n2,3.5,4,4\n4,2.5,3,4\n8,1.75,2.5,4\n' \
    >"$tmp/t.out/cluster_sizes.csv"
"$SYNCTRACE_BIN" export "$tmp/t.out" --format html >/dev/null 2>"$tmp/html.err"
ok $? "export --format html succeeds"
page="$tmp/t.out/timeline.html"
! grep -qiE '(src|href)="?(https?:)?//|https?://[a-z]|@import' "$page"
ok $? "the page is self-contained: no network reference"
if [ -z "$chromium" ]; then
    for i in $(seq 9); do skip "chromium not installed (scripts/setup-debian.sh installs it)"; done
else
    res=$(selftest "$page")
    diag "selftest: $res"
    st() { "$PYTHON3" -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {'d': d}))" "$res" "$1" 2>/dev/null; }
    ok $([ -n "$res" ]; echo $?) "the page runs its self-test in headless Chromium"
    ok $([ "$(st "d['errors']")" = "[]" ]; echo $?) "no script errors"
    # the page opens on the program's work: MPI_Init's end to MPI_Finalize's start (a 2 % margin)
    ok $([ "$(st "d['work'] is not None and 0 < d['work'][0] < d['work'][1] < d['end'] and abs(d['initialView'][0] - (d['work'][0] - 0.02 * (d['work'][1] - d['work'][0]))) < 1 and abs(d['initialView'][1] - (d['work'][1] + 0.02 * (d['work'][1] - d['work'][0]))) < 1")" = True ]; echo $?) \
        "the page opens on the program's work (MPI_Init's end to MPI_Finalize's start: $(st "[round(x) for x in d['work']]") of $(st "d['end']") ns)"
    ok $([ "$(st "d['rowsShown'] == d['ranks'] == 4 and d['rowsShownRaw'] == 4")" = True ]; echo $?) \
        "every one of the 4 ranks has a row with something drawn, in both views"
    ok $([ "$(st "d['tachyonsRaw']")" = "$raw" ] && [ "$(st "d['reportTachyonsRaw']")" = "$raw" ]; echo $?) \
        "raw view: $(st "d['tachyonsRaw']") tachyons in red, the report's raw count ($raw)"
    ok $([ "$(st "d['tachyonsSynchronised'] + d['tachyonsBack']")" = 0 ]; echo $?) \
        "synchronised view: no tachyon in red, before and after the toggle"
    ok $([ "$(st "d['clusterPoints']")" = 9 ]; echo $?) "the cluster-size plot draws the 3 series of cluster_sizes.csv"
    rm "$tmp/t.out/cluster_sizes.csv"
    "$SYNCTRACE_BIN" export "$tmp/t.out" --format html -o "$tmp/nocausal.html" 2>/dev/null
    res=$(selftest "$tmp/nocausal.html")
    ok $([ "$(st "d['clustersNote']")" = "no causal index" ] && [ "$(st "d['errors']")" = "[]" ]; echo $?) \
        "without cluster_sizes.csv the page says: no causal index"
    cp -r "$tmp/t.out" "$tmp/badmap.out"
    echo "synctrace-rawview 2" >"$tmp/badmap.out/rawview.map"
    "$SYNCTRACE_BIN" export "$tmp/badmap.out" --format html >/dev/null 2>"$tmp/badmap.err"
    res=$(selftest "$tmp/badmap.out/timeline.html")
    ok $(grep -q "rawview.map:2: expected 'ranks N'" "$tmp/badmap.err" && [ "$(st "d['tachyonsRaw']")" = None ] &&
        [ "$(st "d['errors']")" = "[]" ]; echo $?) \
        "a bad rawview.map: a warning naming the file and line, and a page without the raw view"
fi

# 4. Bad input: one line naming the file, non-zero exit, nothing left behind.
"$SYNCTRACE_BIN" export "$tmp/none" --format chrome 2>"$tmp/e1"
rc=$?
ok $([ $rc = 1 ] && [ "$(wc -l <"$tmp/e1")" = 1 ] && grep -q "$tmp/none/traces.otf2" "$tmp/e1"; echo $?) \
    "a missing archive: exit 1 and one line naming it ($(cat "$tmp/e1"))"
"$SYNCTRACE_BIN" export "$tmp/t.out" --format svg 2>"$tmp/e2"
ok $([ $? = 2 ] && grep -q "chrome or html" "$tmp/e2"; echo $?) "an unknown format: exit 2"
cp -r "$tmp/t.out" "$tmp/trunc.out"
for f in "$tmp"/trunc.out/traces/*.evt; do head -c 100 "$f" >"$f.x" && mv "$f.x" "$f"; done
"$SYNCTRACE_BIN" export "$tmp/trunc.out" --format chrome -o "$tmp/trunc.json" 2>"$tmp/e3"
rc=$?
ok $([ $rc = 1 ] && [ "$(wc -l <"$tmp/e3")" = 1 ] && [ ! -e "$tmp/trunc.json" ] &&
    [ -z "$(ls "$tmp" | grep 'trunc.json.tmp')" ]; echo $?) \
    "truncated event files: exit 1, one line ($(cut -c1-90 "$tmp/e3")), no output left behind"
ok $([ "$(inputs "$tmp/t.out")" = "$before" ]; echo $?) "the exports only read the merged archive"
# A device or pipe is written in place, never replaced by a renamed file
# (a FIFO stands in for /dev/null, which the test must not risk).
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
"$SYNCTRACE_BIN" export "$tmp/t.out" --format chrome -o "$tmp/fifo" 2>/dev/null
rc=$?
wait $reader
ok $([ $rc = 0 ] && [ -p "$tmp/fifo" ] && "$PYTHON3" -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/fifo.out" &&
    [ -z "$(ls "$tmp" | grep 'fifo.tmp')" ]; echo $?) "-o a FIFO: written through it, which stays a FIFO"

# 5. Progress on a terminal; the report for people and for scripts.
if ! command -v script >/dev/null; then
    skip "script (util-linux) not installed"
elif [ "$(script -qec 'echo pty-ok' /dev/null 2>/dev/null | tr -d '\r')" != pty-ok ]; then
    skip "no working pseudo-terminal here (script -qec 'echo pty-ok' does not echo), so progress on a terminal is not checked"
else
    script -qec "$SYNCTRACE_BIN merge $tmp/m6000 -o $tmp/tty.out" /dev/null >"$tmp/tty.log" 2>&1
    ok $(grep -q "reading rank archives" "$tmp/tty.log" && grep -q "writing the merged archive" "$tmp/tty.log"; echo $?) \
        "on a terminal the merge shows its progress"
fi
"$SYNCTRACE_BIN" report "$tmp/t.out" >"$tmp/report.txt"
ok $? "synctrace report prints the summary"
sed 's/^/#   /' "$tmp/report.txt"
ok $([ "$(wc -l <"$tmp/report.txt")" -le 16 ] && [ "$(awk '{ if (length($0) > 100) n++ } END { print n + 0 }' "$tmp/report.txt")" = 0 ]; echo $?) \
    "the summary is short: $(wc -l <"$tmp/report.txt") lines, none over 100 characters"
ok $(grep -q "tachyons.*$raw.*0" "$tmp/report.txt" && grep -qi "precision\|within" "$tmp/report.txt"; echo $?) \
    "the summary gives the tachyons before and after and the precision"
"$SYNCTRACE_BIN" report "$tmp/t.out" --json | "$PYTHON3" -c "import json,sys; d=json.load(sys.stdin); sys.exit(d['tachyons_raw'] != $raw)"
ok $? "report --json is report.json"
finish
