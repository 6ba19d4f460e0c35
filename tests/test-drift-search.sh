#!/bin/bash
# test-drift-search.sh — no repair where the inputs are consistent (issue
# 34, ask 3). tests/data/raw/bucket-skewed is a real trace whose sync
# rounds misjudged the drifts: under them the messages contradict the
# clocks (delta 1.0 us, and the repair moved events), while its true times
# violate nothing. The merge moves the drifts the least the events need:
#   - delta 0, the repair not run, the drift search's steps in report.json;
#   - the true times violate no constraint, every true offset inside its
#     bounds, no tachyon in the archive;
#   - the error against true time below interpolation's, max and median.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 4
tmp=$(scratch)
raw=$top_srcdir/tests/data/raw/bucket-skewed
"$SYNCTRACE_BIN" merge "$raw" -o "$tmp/out" >"$tmp/out.txt" 2>&1
ok $? "bucket-skewed: merged $(grep -v '^ ' "$tmp/out.txt" | head -c 200)"
"$PYTHON3" - "$tmp/out/report.json" >"$tmp/check" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["truth"]
print("%s - delta %.1f ns, repair applied %s, the drift search kept %d of %d steps (%s)"
      % ("ok" if r["delta_ns"] == 0 and not r["repair"]["applied"] and r["drift_search"]["steps_kept"] > 0 else "not ok",
         r["delta_ns"], r["repair"]["applied"], r["drift_search"]["steps_kept"], r["drift_search"]["solves"],
         r["drift_model"]))
print("%s - the true times violate nothing (%d messages, %d collectives), %d of %d true offsets inside their bounds, "
      "%d tachyons after"
      % ("ok" if t["messages_violated_by_truth"] == 0 and t["collectives_violated_by_truth"] == 0
         and t["domains_inside_bounds"] == len(r["domains"]) and r["tachyons_after"] == 0 else "not ok",
         t["messages_violated_by_truth"], t["collectives_violated_by_truth"], t["domains_inside_bounds"],
         len(r["domains"]), r["tachyons_after"]))
print("%s - error max %.0f ns, median %.0f ns; interpolated ClockOffsets %.0f, %.0f ns"
      % ("ok" if t["error_max_ns"] <= t["interpolated_error_max_ns"]
         and t["error_median_ns"] <= t["interpolated_error_median_ns"] + 20 else "not ok",
         t["error_max_ns"], t["error_median_ns"], t["interpolated_error_max_ns"], t["interpolated_error_median_ns"]))
PY
tap_from_checker "bucket-skewed: " "$tmp/check"
finish
