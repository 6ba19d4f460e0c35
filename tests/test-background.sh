#!/bin/bash
# test-background.sh — periodic sync rounds without world collectives
# (src/sync_background.h), on tests/mpi/mpi_background.c, whose modes call
# no collective on MPI_COMM_WORLD until one MPI_Reduce at the end:
#   - a ring gets rounds every interval (SYNCTRACE_SYNC_BACKGROUND=0, the
#     control, gets none), recorded as paired messages in the sync region,
#     its ClockOffsets in time order and within their bounds of the truth,
#     merged with nothing unmatched and no tachyon;
#   - a rank blocked in MPI_Recv for 300 ms while rank 0 computes, and rank 0
#     computing without any MPI call while the others exchange: no deadlock,
#     no round where none can start, and the report says how long the span
#     without one was;
#   - MPI_THREAD_MULTIPLE, a second thread calling MPI concurrently: rounds
#     in the background (none inside collectives), the run unchanged.
# Every traced run prints what the untraced one prints, and nothing else.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
plan 29
tmp=$(scratch)
if ! prog=$(build_mpi mpi_background "$tmp" 2>"$tmp/build.err"); then
    for i in $(seq 29); do ok 1 "build tests/mpi/mpi_background.c: $(head -c 200 "$tmp/build.err")"; done
    finish
fi
export SYNCTRACE_SKEW=seed=6,offset_us=800,drift_ppm=40 SYNCTRACE_SYNC=init,finalize,periodic

meta() { awk -v k="$2" '$1 == k {print $2}' "$1/run.meta"; }

# traced NAME NP ARGS...: run untraced and traced (environment as set), compare
traced() {
    local name=$1 np=$2
    shift 2
    run_plain "$np" "$prog" "$@" >"$tmp/$name.plain" 2>/dev/null
    run_traced "$tmp/$name" "$np" "$prog" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    ok $? "$name: traced run ends (no deadlock within the timeout)"
    cmp -s "$tmp/$name.plain" "$tmp/$name.out" && [ -s "$tmp/$name.out" ] && ! grep -qE '\[OTF2\]|synctrace' "$tmp/$name.err"
    ok $? "$name: output identical with and without the tracer, nothing on stderr"
    "$SYNCTRACE_BIN" dump "$tmp/$name" >"$tmp/$name.dump" 2>/dev/null
}

# merged NAME: merge; nothing unmatched, no tachyon after the merge
merged() {
    "$SYNCTRACE_BIN" merge "$tmp/$1" -o "$tmp/$1.merged" >"$tmp/$1.merge.out" 2>&1
    local facts
    facts=$("$PYTHON3" -c "import json,sys; r=json.load(open(sys.argv[1]))
print(r['unmatched_sends'], r['unmatched_receives'], r['tachyons_after'])" "$tmp/$1.merged/report.json" 2>/dev/null)
    ok $([ "$facts" = "0 0 0" ]; echo $?) "$1: merged, unmatched sends/receives and tachyons after: ${facts:-no report}"
}

# sync_facts NAME: the sync messages are in the sync region with the
# tracer's tags, every background send has its receive (per pair and
# direction), and every rank's ClockOffsets are in time order
sync_facts() {
    "$PYTHON3" - "$1" <<'PY'
import collections, re, sys
SYNC = "synctrace: clock synchronisation"
errs, stack, last, count, offs = [], collections.defaultdict(list), {}, collections.Counter(), {}
for line in open(sys.argv[1]):
    m = re.match(r"# rank (\d+) clock_offset time=(\d+)", line)
    if m:
        r, tm = int(m.group(1)), int(m.group(2))
        if tm < offs.get(r, 0):
            errs.append("rank %d: a ClockOffset at %d after one at %d" % (r, tm, offs[r]))
        offs[r] = tm
        continue
    if line.startswith("#"):
        continue
    loc, _, kind, rest = line.rstrip("\n").split(" ", 3)
    f = dict(x.split("=", 1) for x in re.findall(r"(\w+=(?:synctrace sync|\S+))", rest))
    tm = (int(f["time"]), int(f.get("true", 0)))
    if loc in last and (tm[0] < last[loc][0] or tm[1] < last[loc][1]):
        errs.append("location %s: time goes back at %s" % (loc, line.strip()[:90]))
    last[loc] = tm
    if kind == "ENTER":
        stack[loc].append(rest.split("region=", 1)[1])   # the last field, with its spaces
    elif kind == "LEAVE" and stack[loc]:
        stack[loc].pop()
    if f.get("comm") == "synctrace sync" and kind in ("SEND", "RECV", "ISEND", "IRECV"):
        if not stack[loc] or stack[loc][-1] != SYNC or f.get("tag") not in ("7117", "7118"):
            errs.append("a sync message outside the sync region or with another tag: " + line.strip()[:90])
        if f.get("tag") == "7118":
            me, peer = int(loc.split(".")[0]), int(f["peer"])
            count[((me, peer) if kind == "SEND" else (peer, me), kind)] += 1
for p in {p for p, _ in count}:
    if count[(p, "SEND")] != count[(p, "RECV")]:
        errs.append("background messages %d->%d: %d sent, %d received" % (p + (count[(p, "SEND")], count[(p, "RECV")])))
sends = sum(v for (p, k), v in count.items() if k == "SEND")
print("%d %s" % (sends, "; ".join(errs[:3]) if errs else "ok"))
PY
}

# --- a ring without world collectives: background rounds every 0.2 s ---
SYNCTRACE_SYNC_INTERVAL=0.2 traced ring 4 ring 10000
rounds=$(meta "$tmp/ring" sync.background_rounds)
epochs=$(meta "$tmp/ring" sync.epochs)
span=$(awk '$1 == 0 && / true=/ { for (i = 1; i <= NF; i++) if ($i ~ /^true=/) { t = substr($i, 6) + 0; if (!f) f = t; l = t } }
            /^# rank 0 world_size/ { r = $15 } END { printf "%.3f", (r > 0 ? (l - f) / r : 0) }' "$tmp/ring.dump")
most=$(awk -v s="$span" 'BEGIN { print int(s / 0.2) + 1 }')
ok $([ "${rounds:-0}" -ge 2 ] && [ "${rounds:-0}" -le "$most" ]; echo $?) \
    "ring: ${rounds:-0} background rounds in a run of $span s at 0.2 s (at least 2, at most $most)"
read -r sends verdict <<<"$(sync_facts "$tmp/ring.dump")"
ok $([ "$verdict" = ok ] && [ "${sends:-0}" -ge $((2 * 3 * 20 * 2)) ]; echo $?) \
    "ring: $sends background messages, in the sync region, paired, ClockOffsets in time order: $verdict"
kept=$(meta "$tmp/ring" sync.background_kept)
offsets=$(grep -c "^# rank [1-9][0-9]* clock_offset" "$tmp/ring.dump")
ok $([ "$offsets" -eq $((3 * epochs + kept)) ]; echo $?) \
    "ring: $offsets ClockOffsets on ranks 1-3: $epochs collective rounds each, and the $kept background ones precise enough"
"$PYTHON3" "$top_srcdir/tests/checkers/sync_check.py" $((_tap_n + 1)) <"$tmp/ring.dump"
_tap_n=$((_tap_n + 7))
merged ring

# the control: the same run without background rounds has none
SYNCTRACE_SYNC_INTERVAL=0.2 SYNCTRACE_SYNC_BACKGROUND=0 run_traced "$tmp/ring0" 4 "$prog" ring 10000 >/dev/null 2>&1
n0=$(meta "$tmp/ring0" sync.background_rounds)
m0=$("$SYNCTRACE_BIN" dump "$tmp/ring0" 2>/dev/null | grep -c " tag=7118")
ok $([ "${n0:-x}" = 0 ] && [ "$m0" -eq 0 ]; echo $?) "SYNCTRACE_SYNC_BACKGROUND=0: ${n0:-?} background rounds, $m0 of their messages"

# a bad value is refused at MPI_Init with one line, and the program still runs untraced
SYNCTRACE_SYNC_BACKGROUND=yes run_traced "$tmp/bad" 2 "$prog" late-recv >"$tmp/bad.out" 2>"$tmp/bad.err"
ok $([ $? -eq 0 ] && grep -q "SYNCTRACE_SYNC_BACKGROUND: 'yes' is not 0 or 1" "$tmp/bad.err" && [ ! -e "$tmp/bad/run.meta" ]; echo $?) \
    "SYNCTRACE_SYNC_BACKGROUND=yes: $(head -1 "$tmp/bad.err")"

# --- no deadlock: rank 1 waits in MPI_Recv while rank 0 computes ---
SYNCTRACE_SYNC_INTERVAL=0.05 traced late-recv 3 late-recv
merged late-recv

# --- rank 0 never calls MPI for 600 ms: no round can start ---
SYNCTRACE_SYNC_INTERVAL=0.1 traced quiet-root 3 quiet-root
q=$(meta "$tmp/quiet-root" sync.background_rounds)
ok $([ "${q:-9}" -le 1 ]; echo $?) \
    "quiet-root: ${q:-?} background rounds (none while rank 0 makes no MPI call; one may start at its next call)"
merged quiet-root
longest=$("$PYTHON3" -c "import json,sys; r=json.load(open(sys.argv[1]))
print(min(d['longest_without_round_ns'] for d in r['domains'] if d['domain'] != 0) / 1e6)" \
    "$tmp/quiet-root.merged/report.json" 2>/dev/null)
ok $(awk -v l="${longest:-0}" 'BEGIN { exit !(l >= 500) }'; echo $?) \
    "quiet-root: the report gives the longest span without a round (${longest:-?} ms >= 500)"
grep -q "the longest span without one .*: a drift change of 1 ppm inside it would cost up to" "$tmp/quiet-root.merged/report.txt"
ok $? "quiet-root: report.txt says so: $(grep -o 'sync rounds .*' "$tmp/quiet-root.merged/report.txt" | head -1 | cut -c1-120)"

# --- MPI_THREAD_MULTIPLE: a second thread calls MPI at the same time ---
SYNCTRACE_SYNC_INTERVAL=0.1 traced threads 3 threads 6000
t=$(meta "$tmp/threads" sync.background_rounds)
te=$(meta "$tmp/threads" sync.epochs)
ok $([ "${t:-0}" -ge 1 ] && [ "${te:-0}" -eq 2 ]; echo $?) \
    "threads (MULTIPLE): ${t:-0} background rounds, none inside collectives (${te:-?} epochs: init, finalize)"
read -r sends verdict <<<"$(sync_facts "$tmp/threads.dump")"
ok $([ "$verdict" = ok ]; echo $?) "threads: $sends background messages, paired, in the sync region: $verdict"
merged threads

finish
