#!/bin/bash
# SYNCTRACE_SKEW: recorded times move by the injected offset and drift while
# true_time does not; sync rounds give ClockOffsets whose error is within
# their reported bound; periodic rounds happen at the configured interval.
. "$top_srcdir/tests/lib.sh"
plan 27
: "${PYTHON3:=python3}"
tmp=$(scratch)
stencil="$top_builddir/examples/stencil"

SYNCTRACE_SKEW=seed=5,offset_us=1000,drift_ppm=50 run_traced "$tmp/a" 4 "$stencil" -i 100 >"$tmp/a.out"
ok $? "stencil runs traced with skew on 4 ranks"
"$SYNCTRACE_BIN" dump "$tmp/a" >"$tmp/a.dump"
"$PYTHON3" "$top_srcdir/tests/checkers/sync_check.py" 2 <"$tmp/a.dump"
_tap_n=$((_tap_n + 7))
grep -q "^sync.epochs 2$" "$tmp/a/run.meta"
ok $? "init and finalize rounds: 2 sync epochs in run.meta"
n=$(grep -c " SEND .*comm=synctrace sync" "$tmp/a.dump")
ok $([ "$n" -eq $((2 * 3 * 20 * 2)) ]; echo $?) "each round: 20 ping-pongs with each of 3 peers, recorded as messages ($n sends)"

# Periodic rounds inside MPI_COMM_WORLD collectives: a ~1.2 s program with
# a 0.2 s interval gets several, and never more often than the interval.
periodic=$(build_mpi mpi_periodic "$tmp")
SYNCTRACE_SKEW=seed=9,offset_us=500,drift_ppm=80 SYNCTRACE_SYNC=init,finalize,periodic SYNCTRACE_SYNC_INTERVAL=0.2 \
    run_traced "$tmp/p" 3 "$periodic" 1.2
ok $? "periodic sync program runs"
epochs=$(awk '$1 == "sync.epochs" {print $2}' "$tmp/p/run.meta")
"$SYNCTRACE_BIN" dump "$tmp/p" >"$tmp/p.dump"
# How many rounds fit depends on how fast the loaded machine ran the program:
# at least one periodic round, and never more than its true duration allows
# at one per 0.2 s (plus the init and finalize rounds).
span=$(awk '$1 == 0 && / true=/ { for (i = 1; i <= NF; i++) if ($i ~ /^true=/) { t = substr($i, 6) + 0; if (!f) f = t; l = t } }
            /^# rank 0 world_size/ { r = $15 } END { printf "%.3f", (r > 0 ? (l - f) / r : 0) }' "$tmp/p.dump")
most=$(awk -v s="$span" 'BEGIN { print int(s / 0.2) + 2 }')
ok $([ "${epochs:-0}" -ge 3 ] && [ "${epochs:-0}" -le "$most" ]; echo $?) \
    "periodic: $epochs epochs in a run of $span s at 0.2 s (init, at least one periodic, finalize; at most $most)"
"$PYTHON3" "$top_srcdir/tests/checkers/sync_check.py" 13 --min-offsets "${epochs:-5}" <"$tmp/p.dump"
_tap_n=$((_tap_n + 7))
# rounds are never closer than the interval on rank 0's true clock
# A round starts with a sync region whose first message is a collective
# round's (tag 7117) or a background round's first ping (a SEND, tag 7118);
# the background round's later regions collect pongs. The last gap ends at
# the finalize round, which is not periodic.
gaps=$(awk '$1 == 0 && $3 == "ENTER" && /clock synchronisation/ { split($5, a, "="); at = a[2]; open = 1; next }
            $1 == 0 && open { open = 0; if (/tag=7117/ || ($3 == "SEND" && /tag=7118/)) { if (prev) print (at - prev); prev = at } }' "$tmp/p.dump")
rate=$(awk '/^# rank 0 world_size/ {print $15}' "$tmp/p.dump")
starts=$(($(echo "$gaps" | grep -c .) + 1))
short=$(echo "$gaps" | awk -v r="$rate" -v last="$((starts - 1))" 'NR < last && r > 0 && $1 / r < 0.19 { n++ } END { print (r > 0 ? n + 0 : -1) }')
ok $([ "$short" -eq 0 ]; echo $?) "periodic rounds, in collectives or in the background ($(awk '$1 == "sync.background_rounds" {print $2}' "$tmp/p/run.meta")), are at least the interval apart"

# SYNCTRACE_SYNC_INTERVAL=auto: Fleury et al.'s eq. 6 from two rounds at init.
SYNCTRACE_SKEW=seed=4,offset_us=200,drift_ppm=20 SYNCTRACE_SYNC_INTERVAL=auto run_traced "$tmp/auto" 3 "$stencil" -i 20 >/dev/null
ok $? "stencil runs with SYNCTRACE_SYNC_INTERVAL=auto"
meta="$tmp/auto/run.meta"
ok $([ "$(awk '$1 == "sync.interval_mode" {print $2}' "$meta")" = auto ] && [ "$(awk '$1 == "sync.epochs" {print $2}' "$meta")" -eq 3 ]; echo $?) \
    "auto: two rounds at init (S apart) plus finalize: $(awk '$1 == "sync.epochs" {print $2}' "$meta") epochs"
awk '$1 == "sync.auto.t0_s" {t0 = $2} $1 == "sync.auto.e_d_s" {ed = $2} $1 == "sync.auto.e_f" {ef = $2}
     $1 == "sync.interval_s" {r = $2}
     END { want = (ef > 0) ? (t0 - 2 * ed) / (2 * ef) : 3600; if (want < 1) want = 1; if (want > 3600) want = 3600;
           ok = t0 > 0 && ed > 0 && ef > 0 && (r - want < 1e-3 * want + 1e-6) && (want - r < 1e-3 * want + 1e-6);
           printf "# T0 %.3g s, e_d %.3g s, e_f %.3g -> R = %.6g s (recorded %.6g)\n", t0, ed, ef, want, r; exit !ok }' "$meta"
ok $? "auto: the recorded interval is R = (T0 - 2 e_d) / (2 e_f), clamped to [1, 3600] s, from recorded T0, e_d, e_f"

# Periodic rounds inside world collectives need every one on the recording
# thread: they run up to MPI_THREAD_FUNNELED; above, rounds are taken in the
# background only (tests/test-background.sh), and nothing hangs.
levels=$(build_mpi mpi_thread_level "$tmp")
for level in funneled multiple; do
    SYNCTRACE_SKEW=seed=2,offset_us=100,drift_ppm=10 SYNCTRACE_SYNC=init,finalize,periodic SYNCTRACE_SYNC_INTERVAL=0.0001 \
        run_traced "$tmp/t-$level" 3 "$levels" "$level" >/dev/null
    ok $? "MPI_THREAD_${level^^} with periodic sync runs to the end"
done
e=$(awk '$1 == "sync.epochs" {print $2}' "$tmp/t-funneled/run.meta")
ok $([ "${e:-0}" -gt 2 ]; echo $?) "funneled: periodic rounds happen ($e epochs)"
ok $([ "$(awk '$1 == "sync.epochs" {print $2}' "$tmp/t-multiple/run.meta")" -eq 2 ] \
     && grep -q '^sync.background_rounds [0-9]' "$tmp/t-multiple/run.meta"; echo $?) \
    "multiple: no rounds inside collectives (init and finalize only), periodic ones in the background ($(awk '$1 == "sync.background_rounds" {print $2}' "$tmp/t-multiple/run.meta"))"
finish
