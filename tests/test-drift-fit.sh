#!/bin/bash
# test-drift-fit.sh — each clock's line moved the least that the messages
# require (tools/merge/drift_fit.c), against --drift-model rounds (the
# sync rounds' lines as measured, only offsets moved) on the same traces.
# synctrace-gen writes rings whose true times are known:
#   - noisy sync rounds (latency 1 to 10 us and 2 to 30 us, so the fastest
#     round trip is asymmetric by microseconds), 4 seeds each: every merge
#     tachyon-free, every clock's true offset inside its bounds, the max
#     error not above interpolation's; the fit moves some clock's line in
#     at least one of them (and never under --drift-model rounds);
#   - exact sync rounds (a constant latency): nothing excludes the rounds'
#     lines, the fit moves no clock, no offset moves off its estimate, and
#     the result is --drift-model rounds' to the nanosecond and
#     interpolation's within 1 ns;
#   - a bad --drift-model value is refused in one line.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 12
tmp=$(scratch)
gen=$top_builddir/synctrace-gen
check() {   # check DIR_FIT DIR_ROUNDS MODE: one "ok - ..." or "not ok - ..." line
    "$PYTHON3" - "$1/report.json" "$2/report.json" "$3" <<'PY'
import json, sys
f, r = (json.load(open(p)) for p in sys.argv[1:3])
mode = sys.argv[3]
tf, tr = f["truth"], r["truth"]
fig = ("max %.0f ns, median %.0f ns (rounds' lines %.0f, %.0f; interpolation %.0f, %.0f), %d clocks fitted"
       % (tf["error_max_ns"], tf["error_median_ns"], tr["error_max_ns"], tr["error_median_ns"],
          tf["interpolated_error_max_ns"], tf["interpolated_error_median_ns"], f["drift_fitted_clocks"]))
clean = (f["tachyons_after"] == r["tachyons_after"] == 0 and r["drift_fitted_clocks"] == 0
         and tf["domains_inside_bounds"] == len(f["domains"]))
if mode == "noisy":
    good = clean and tf["error_max_ns"] <= tf["interpolated_error_max_ns"]
else:
    good = (clean and f["drift_fitted_clocks"] == 0
            and [(d["offset_ns"], d["drift_ppm"]) for d in f["domains"]]
                == [(d["offset_ns"], d["drift_ppm"]) for d in r["domains"]]
            and tf["error_max_ns"] == tr["error_max_ns"]
            # projected, not pulled towards the interval's middle: an
            # estimate the messages allow stays, so exact rounds give
            # interpolation's times (to the 1 ns of rounding)
            and f["placement"]["clocks_moved_by_messages"] == 0
            and abs(tf["error_max_ns"] - tf["interpolated_error_max_ns"]) <= 1
            and abs(tf["error_median_ns"] - tf["interpolated_error_median_ns"]) <= 1)
print("%s - %s" % ("ok" if good else "not ok", fig))
PY
}
fitted=0
for lat in 1000:10000 2000:30000; do
    for seed in 1 2 3 4; do
        raw=$tmp/noisy-$lat-$seed
        what="noisy rounds (latency $lat ns), seed $seed"
        if "$gen" "$raw" --ranks 4 --pattern ring --iterations 1000 --latency-ns "$lat" --compute-us 5 \
                --seed "$seed" >/dev/null 2>&1 \
            && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.fit" >/dev/null 2>&1 \
            && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.rounds" --drift-model rounds >/dev/null 2>&1; then
            line=$(check "$raw.fit" "$raw.rounds" noisy 2>&1)
        else
            line="not ok - generated or merged with an error"
        fi
        case $line in
            "ok - "*) ok 0 "$what: tachyon-free, the truth inside the bounds, max at most interpolation's: ${line#ok - }" ;;
            *) ok 1 "$what: ${line:-no result}" ;;
        esac
        case $line in *", 0 clocks fitted") ;; "ok - "*) fitted=$((fitted + 1)) ;; esac
    done
done
[ "$fitted" -ge 1 ]
ok $? "the fit moved some clock's line in $fitted of the 8 noisy runs"
raw=$tmp/exact
"$gen" "$raw" --ranks 4 --pattern ring --iterations 300 --latency-ns 1000 --seed 7 >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.fit" >/dev/null 2>&1 \
    && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.rounds" --drift-model rounds >/dev/null 2>&1
ok $? "exact rounds: generated and merged both ways"
line=$(check "$raw.fit" "$raw.rounds" exact 2>&1)
case $line in
    "ok - "*) ok 0 "exact rounds: no clock fitted, the rounds' lines unchanged: ${line#ok - }" ;;
    *) ok 1 "exact rounds: ${line:-no result}" ;;
esac
out=$("$SYNCTRACE_BIN" merge "$raw" -o "$tmp/bad" --drift-model wobbly 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [ ! -e "$tmp/bad" ] \
    && printf '%s' "$out" | grep -q "auto, line, rounds or segments"
ok $? "--drift-model wobbly: exit $rc, one line, nothing written ($out)"
finish
