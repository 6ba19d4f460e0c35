#!/bin/bash
# test-estimates.sh — offsets at the sync rounds' estimates, projected onto
# what the messages allow (tools/merge/estimate.c), against --alpha 0.5
# (the interval's midpoints) on the same traces; the default merge is
# --estimates' (the same offsets; report.json's "placement" says which). bench/shapes.c's "ring"
# (messages on every pair of neighbours), "longrun" (rare world
# collectives), "bcast" (collectives only), "silent" (ranks without
# messages of their own) and "pingpong" (two ranks talk, two wait), 4
# ranks, skewed clocks, one or two seeds each:
#   - --estimates and --alpha 0.5 both tachyon-free, with the same bounds
#     (every domain's lo/hi) and the same pair uncertainty;
#   - every domain's offset inside its bounds;
#   - the error against true time, against interpolation's (the
#     producer's ClockOffsets as OTF2 reads them). Where interpolation's
#     timeline is consistent (no message received before it was sent,
#     tachyons_raw 0, and no collective's data flow broken,
#     collective_order_violations_raw 0) and every clock's drift between
#     its rounds is physical (not drift_rejected: rounds 1.5 ms apart have
#     given 2,260 ppm, which interpolation extrapolates 0.3 s, 361 us off
#     against our 13.5 us), it is a timeline the bounds allow, and ours must not
#     be farther from the truth: max and median at most interpolation's
#     + 20 ns (one clock read's noise). Where it shows tachyons, any
#     consistent timeline must leave it, and ours leaves it the least the
#     messages require: 0 tachyons, the figures printed (in 5 of 39 such
#     runs of bench/accuracy_shapes.sh, 2026-12-03, ours was farther, at
#     the max or the median); the max not above interpolation's where the
#     worst event lies inside the sync rounds' span (within 1 ns: times
#     are rounded to whole ns and ticks), nor above it plus the pair
#     interval where it lies beyond them (MPI_Init's Enter, before the
#     first round: both extrapolate a drift from an offset at the first
#     round that may differ from the ClockOffset's within that interval,
#     as test-extrapolation.sh allows).
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
runs="ring:1 ring:2 longrun:1 longrun:2 bcast:1 silent:1 pingpong:1 pingpong:2"
plan 33
tmp=$(scratch)
build_shapes "$tmp" 33
clean_runs=0
for run in $runs; do
    shape=${run%:*} seed=${run#*:}
    raw=$tmp/$shape$seed
    SYNCTRACE_SKEW="seed=$seed,offset_us=1000,drift_ppm=50" run_traced "$raw" 4 "$tmp/shapes" "$shape" >"$raw.out" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.est" --estimates >"$raw.est.txt" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.mid" --alpha 0.5 >"$raw.mid.txt" 2>&1 \
        && "$SYNCTRACE_BIN" merge "$raw" -o "$raw.def" >"$raw.def.txt" 2>&1
    ok $? "$shape seed $seed: traced, merged with --estimates, with --alpha 0.5 and with neither"
    "$PYTHON3" - "$raw.est/report.json" "$raw.mid/report.json" "$shape" "$raw.def/report.json" >"$raw.check" 2>&1 <<'PY'
import json, sys
e, m, d = (json.load(open(p)) for p in sys.argv[1:3] + sys.argv[4:5])
same = (e["tachyons_after"] == m["tachyons_after"] == 0
        and [(d["lo_ns"], d["hi_ns"]) for d in e["domains"]] == [(d["lo_ns"], d["hi_ns"]) for d in m["domains"]]
        and e["pair_uncertainty_max_ns"] == m["pair_uncertainty_max_ns"]
        and all(d["lo_ns"] - 1e-3 <= d["offset_ns"] <= d["hi_ns"] + 1e-3 for d in e["domains"]))
t = e["truth"]
# interpolation's timeline consistent: ours no farther from the truth
rejected = sum(1 for x in e["domains"] if x.get("drift_rejected"))
clean = e["tachyons_raw"] == 0 and e["collective_order_violations_raw"] == 0 and rejected == 0
# beyond the rounds (MPI_Init's Enter) both extrapolate a drift from
# offsets at the first round that may differ within the pair interval
outside = t["error_max_outside_rounds_ns"] != 0
# inside the rounds, where no message moved a clock the two are the same
# line but for rounding: merged times are whole ns, interpolated ones whole
# ticks; 1 ns covers both (a run here was 0.3 ns above)
allow = 20.0 if clean else e["pair_uncertainty_max_ns"] if outside else 1.0
# beyond the rounds of a clock whose drift was rejected (beyond physics)
# interpolation extrapolates that drift and we none: the two differ by
# design, and ours is held to its report's bound there, as in
# test-extrapolation.sh (a clean-clone run: 43.4 against 26.8 us)
own_bound = outside and rejected and not clean
ceiling = (max(x["outside_rounds"]["bound_ns"] for x in e["domains"]) + e["pair_uncertainty_max_ns"] if own_bound
           else t["interpolated_error_max_ns"] + allow)
better = (t["error_max_ns"] <= ceiling
          and (not clean or t["error_median_ns"] <= t["interpolated_error_median_ns"] + 20.0))
print("%s - 0 tachyons, bounds and precision as --alpha 0.5's, offsets inside them"
      % ("ok" if same else "not ok"))
print("%s - %s: error median %.1f ns (interpolation %.1f, midpoints %.1f), max %.1f ns (%s %.1f + %.1f; at %s, %s)"
      % ("ok" if better else "not ok",
         "interpolation consistent, ours within 20 ns of it or below" if clean
         else "interpolation shows %d tachyons and %d collectives broken, %d clocks' drift unphysical; ours 0 "
         "tachyons, the median not judged" % (e["tachyons_raw"], e["collective_order_violations_raw"], rejected),
         t["error_median_ns"], t["interpolated_error_median_ns"],
         m["truth"]["error_median_ns"], t["error_max_ns"],
         "the report's bound beyond the rounds" if own_bound else "interpolation",
         ceiling - e["pair_uncertainty_max_ns"] if own_bound else t["interpolated_error_max_ns"],
         e["pair_uncertainty_max_ns"] if own_bound else allow, t["error_max_at"],
         "%.0f ms beyond the rounds" % (abs(t["error_max_outside_rounds_ns"]) / 1e6) if outside else "inside the rounds"))
same_default = ([x["offset_ns"] for x in d["domains"]] == [x["offset_ns"] for x in e["domains"]]
                and d["placement"]["method"] == e["placement"]["method"] == "estimates"
                and m["placement"] == {"method": "alpha", "alpha": 0.5})
print("%s - the default places the offsets as --estimates does (placement %s; --alpha 0.5's %s)"
      % ("ok" if same_default else "not ok", d["placement"], m["placement"]))
PY
    grep -q "interpolation consistent" "$raw.check" && clean_runs=$((clean_runs + 1))
    for check in 1 2 3; do
        line=$(sed -n "${check}p" "$raw.check")
        case $line in
            "ok - "*) ok 0 "$shape seed $seed: ${line#ok - }" ;;
            *) ok 1 "$shape seed $seed: ${line:-no result ($(head -c 200 "$raw.check"))}" ;;
        esac
    done
done
# a run judged at the median needs interpolation consistent, which the
# rounds' luck decides (half of the corpus' runs): none at all is a skip
if [ "$clean_runs" -gt 0 ]; then
    ok 0 "$clean_runs of 8 runs had interpolation consistent and were judged at the median"
else
    skip "no run had interpolation consistent (every run's ClockOffsets showed tachyons)"
fi
finish
