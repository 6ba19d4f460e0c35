#!/bin/bash
# test-recover.sh — a rank killed with SIGKILL cannot close its archive; its
# flushed events are recovered from the event file and the recovery journal,
# and what it recorded after its last flush from its records file
# (tests/mpi/mpi_kill9.c, 4 ranks, SYNCTRACE_BUFFER_MB=1): rank 2 makes 300000
# MPI_Iprobe calls, flushing its buffer several times, then kills itself;
# the others wait in an MPI_Recv until mpirun ends them with SIGTERM (their
# archives are closed by the tracer's signal handler). SYNCTRACE_SKEW is on,
# so the recovered events must keep their true_time attribute too. A second
# run ("rma") first does one-sided communication on a named window: the
# recovered rank keeps its window and its RMA events. A third ("sparse")
# first makes an MPI_Alltoallv in which ranks 2 and 3 are sparse members:
# an archive defines only the coll_sources_<k> words its events carry
# (rawformat.h), the closing tracer from what it recorded, the recovery
# from the journal's source_word records, with the same references.
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
N=34
plan $N

tmp=$(scratch)
if ! prog=$(build_mpi mpi_kill9 "$tmp"); then
    for i in $(seq $N); do ok 1 "build tests/mpi/mpi_kill9.c"; done
    finish
fi
calls=300000
dir=$tmp/trace
# The recovered archives are rebuilt under TMPDIR: a private one, to see
# that nothing is left behind there.
rtmp=$tmp/rtmp
mkdir -p "$rtmp"
st() { TMPDIR=$rtmp timeout -k 5 30 "$SYNCTRACE_BIN" "$@"; }

start=$(date +%s)
timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir" -x SYNCTRACE_BUFFER_MB=1 \
    -x SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20 \
    "$prog" $calls >"$tmp/out" 2>"$tmp/err"
rc=$?
diag "mpirun exit status $rc after $(($(date +%s) - start)) s"
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$left" ] && grep -q "^KILLING rank 2 after $calls calls" "$tmp/out"
ok $? "rank 2 got through its $calls calls and was killed; mpirun exits non-zero ($rc) by itself, no process left"

# What the kill left: rank 2 has events and a journal but no anchor; the
# others closed their archives, and with that removed their journals.
j=$dir/rank-000002.journal
evt=$dir/rank-000002/2.evt
[ -s "$j" ] && [ -s "$evt" ] && [ ! -s "$dir/rank-000002.otf2" ] \
    && [ "$(ls "$dir"/rank-00000[013].otf2 2>/dev/null | wc -l)" -eq 3 ] && ! ls "$dir"/rank-00000[013].journal >/dev/null 2>&1
ok $? "rank 2 left its event file and journal but no anchor; ranks 0, 1, 3 closed their archives and removed their journals"

# Fingerprint of the input: contents and metadata (size, links, mtime, ctime).
fingerprint() {
    (cd "$1" && find . -print0 | sort -z | xargs -0 stat -c '%n %F %s %h %Y %Z' && find . -type f -print0 | sort -z | xargs -0 md5sum)
}
fingerprint "$dir" >"$tmp/fp.before"

st dump "$dir" >"$tmp/dump" 2>"$tmp/dump.err"
rc=$?
readable=0
for r in 0 1 2 3; do grep -q "^# rank $r world_size 4 " "$tmp/dump" || readable=1; done
[ $rc -eq 0 ] && [ $readable -eq 0 ] && [ ! -s "$tmp/dump.err" ]
ok $? "synctrace dump reads all 4 ranks, rank 2 recovered (exit $rc$([ -s "$tmp/dump.err" ] && echo ": $(head -1 "$tmp/dump.err")"))"

# The recovered events are exactly those of the whole chunks in the event
# file: the number in the last chunk's header (OTF2 writes chunks whole,
# each with the numbers of its first and last event).
chunk=$(awk '$1 == "chunk_size" {print $2}' "$j")
nrec=$(grep -c '^2 ' "$tmp/dump")
nchunks=$("$PYTHON3" - "$evt" "$chunk" <<'EOF'
import os, struct, sys
path, chunk = sys.argv[1], int(sys.argv[2])
size = os.path.getsize(path)
last = 0
with open(path, 'rb') as f:
    for k in range(size // chunk):
        f.seek(k * chunk)
        h = f.read(18)
        first, end = struct.unpack('<QQ' if h[1] == 0x42 else '>QQ', h[2:18])
        if h[0] != 3 or first != last + 1:
            sys.exit(1)
        last = end
print(size // chunk, size % chunk, last)
EOF
)
read -r whole rest inchunks <<<"$nchunks"
probes=$(grep -c '^2 [0-9]* ENTER .*region=MPI_Iprobe$' "$tmp/dump")
diag "rank 2: ${whole:-?} chunks of $chunk bytes (+${rest:-?} bytes) hold ${inchunks:-?} events; $nrec events recovered, $probes MPI_Iprobe"
# The event file's whole chunks, continued by the records file's: all it
# recorded, its last MPI_Iprobe too, a polling run still open at the kill
# (an unsuccessful poll is written once the next call shows whether the
# run goes on: src/polling.h; until then its current chunk keeps it).
[ -n "$inchunks" ] && [ "$whole" -ge 2 ] && [ "$rest" -eq 0 ] && [ "$nrec" -gt "$inchunks" ] \
    && [ "$probes" -eq "$calls" ]
ok $? "rank 2: $nrec events recovered: the ${inchunks:-?} of its ${whole:-?} flushed chunks and the rest from its records file, $probes MPI_Iprobe of its $calls calls (the last one an open polling run)"
[ "$(grep '^2 ' "$tmp/dump" | tail -1 | cut -d' ' -f3)" = LEAVE ] && grep -q "^2 $((nrec - 2)) ENTER .*region=MPI_Iprobe$" "$tmp/dump"
ok $? "rank 2's last events: the open polling run's Enter and Leave, from its records file's current chunk"
[ -s "$dir/rank-000002.records" ] && ! ls "$dir"/rank-00000[013].records >/dev/null 2>&1
ok $? "rank 2 left its records file; ranks 0, 1, 3 removed theirs when they closed their archives"

# The journal itself: text, one record a line, complete up to the kill.
run_id=$(awk '$1 == "run_id" {print $2}' "$dir/run.meta")
[ "$(head -1 "$j")" = "synctrace-journal 2" ] && grep -q "^header_end [0-9]*$" "$j" \
    && [ "$(grep -c '^region ' "$j")" -eq "$(awk '$1 == "header_end" {print $2}' "$j")" ] \
    && grep -qx "property SYNCTRACE::RUN_ID $run_id" "$j" && [ "$(grep -c '^comm [0-9]* ' "$j")" -eq 4 ] \
    && grep -q '^comm 3 %00 4 @0 key [0-9a-f]\{16\}$' "$j" && grep -q '^group 0 4 0,1,2,3$' "$j" && [ "$(tail -c 1 "$j" | od -An -c | tr -d ' ')" = '\n' ]
ok $? "rank 2's journal: format line, complete header, run id, its 4 communicators (MPI_Comm_dup's last), whole lines"

# Definitions from the journal: run id, host and clock as on rank 0, the
# same communicators (MPI_Comm_dup's included), a plausible resolution.
field() { grep "^# rank $1 world_size" "$tmp/dump" | sed "s/.* $2 \([^ ]*\).*/\1/"; }
comms() { grep "^# rank $1 comm " "$tmp/dump" | sed "s/^# rank $1 //; s/MPI_COMM_SELF members=$1/MPI_COMM_SELF/"; }
same=0
for f in world_size run_id host clock; do
    [ -n "$(field 0 $f)" ] && [ "$(field 2 $f)" = "$(field 0 $f)" ] || { same=1; diag "rank 2's $f: $(field 2 $f), rank 0's: $(field 0 $f)"; }
done
res=$(field 2 resolution)
[ $same -eq 0 ] && [ "$(comms 0)" = "$(comms 2)" ] && [ "$(comms 2 | wc -l)" -ge 4 ] && [ "${res:-0}" -gt 1000000 ]
ok $? "rank 2's definitions (run id $(field 2 run_id), host, clock, $(comms 2 | wc -l) communicators, resolution $res) agree with rank 0's"

# Communicator life survives the kill: the journal's comm_events records
# flag MPI_COMM_WORLD, MPI_COMM_SELF and the dup in the rebuilt definitions,
# whose CommCreate events (before the first flush) were recovered.
flagged=$(grep "^# rank 2 comm_info " "$tmp/dump" | grep -c ' events\( \|$\)')
creates=$(grep -c '^2 [0-9]* COMM_CREATE ' "$tmp/dump")
[ "$flagged" -eq 3 ] && [ "$creates" -eq 3 ] && [ "$(grep -c '^comm_events ' "$j")" -eq 3 ]
ok $? "rank 2 recovered: $flagged communicators flagged CREATE_DESTROY_EVENTS (journal comm_events), $creates CommCreate (want 3, 3)"

# The events themselves: MPI_Init (with the tracer's clock synchronisation
# in it), MPI_Comm_rank, MPI_Comm_size, MPI_Comm_dup, MPI_Barrier, then
# MPI_Iprobe calls (the last one may be cut at the chunk's end), and the
# buffer flushes, in non-decreasing time, each with its true time.
cat >"$tmp/check.py" <<'EOF'
import sys
ev = []
for line in open(sys.argv[1]):
    if line.startswith('2 '):
        f = line.split()   # 2 INDEX KIND time=T [true=T] fields; a region name is last and may hold spaces
        region = line.rstrip('\n').split(' region=', 1)[1] if ' region=' in line else None
        ev.append((int(f[1]), f[2], int(f[3][5:]), region, len(f) > 4 and f[4].startswith('true='),
                   ' op=create_handle ' in line))
ok = lambda c, m: print(('ok - ' if c else 'not ok - ') + m)
ok(len(ev) > 0 and [e[0] for e in ev] == list(range(len(ev))), "%d events, numbered 0..n-1 in order" % len(ev))
bad = [i for i in range(1, len(ev)) if ev[i][2] < ev[i - 1][2]]
ok(not bad, "timestamps never decrease%s" % (" (first at event %d)" % bad[0] if bad else ""))
ok(all(e[4] for e in ev if e[1] != 'FLUSH'), "every event but the flushes (written by OTF2) carries its true time")
stack, top, problems, nflush = [], [], [], 0
sync = 'synctrace: clock synchronisation'
pending_handle = False   # a COLL_BEGIN whose COLL_END is create_handle
for n, (i, kind, _, region, _, handle) in enumerate(ev):
    if kind == 'ENTER':
        if not stack:
            top.append(region)
        elif stack != ['MPI_Init'] or region != sync:
            problems.append('%d: %s inside %s' % (i, region, stack))
        stack.append(region)
    elif kind == 'LEAVE':
        if not stack or stack[-1] != region:
            problems.append('%d: LEAVE %s, open: %s' % (i, region, stack))
        else:
            stack.pop()
    elif kind in ('SEND', 'RECV'):
        if stack[-1:] != [sync]:
            problems.append('%d: %s outside the clock synchronisation' % (i, kind))
    elif kind in ('COLL_BEGIN', 'COLL_END'):
        # the communicators' creation collectives: in MPI_Init and MPI_Comm_dup
        if kind == 'COLL_BEGIN':
            pending_handle = next((e[5] for e in ev[n + 1:] if e[1] == 'COLL_END'), False)
        handle = handle if kind == 'COLL_END' else pending_handle
        if stack not in ((['MPI_Init'], ['MPI_Comm_dup']) if handle else (['MPI_Barrier'],)):
            problems.append('%d: %s outside MPI_Barrier%s' % (i, kind, ' (or a creation)' if handle else ''))
    elif kind == 'COMM_CREATE':   # WORLD and SELF inside MPI_Init, the dup inside MPI_Comm_dup
        if stack not in (['MPI_Init'], ['MPI_Comm_dup']):
            problems.append('%d: COMM_CREATE inside %s' % (i, stack))
    elif kind == 'FLUSH':
        nflush += 1
    else:
        problems.append('%d: unexpected %s' % (i, kind))
if stack not in ([], ['MPI_Iprobe']):
    problems.append('left open: %s' % stack)
ok(not problems, "ENTER/LEAVE nest properly, messages only in the sync, collectives only in the barrier "
   "(and CREATE_HANDLE's in MPI_Init and MPI_Comm_dup), communicators created in MPI_Init and MPI_Comm_dup%s"
   % (" (%s)" % '; '.join(problems[:3]) if problems else ""))
first = ['MPI_Init', 'MPI_Comm_rank', 'MPI_Comm_size', 'MPI_Comm_dup', 'MPI_Barrier']
ok(top[:5] == first and len(top) - 5 == int(sys.argv[2]) and all(r == 'MPI_Iprobe' for r in top[5:]),
   "the calls are %s, then %d MPI_Iprobe" % (', '.join(first), len(top) - 5))
ok(nflush >= 1, "%d buffer flushes recorded" % nflush)
EOF
"$PYTHON3" "$tmp/check.py" "$tmp/dump" $calls >"$tmp/check" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q '^not ok' "$tmp/check" && [ "$(grep -c '^ok' "$tmp/check")" -eq 6 ]
ok $? "the recovered events are rank 2's: $(grep -c '^ok' "$tmp/check")/6 checks"
sed 's/^/#   /' "$tmp/check"

# The merge reads the recovered rank too, and says what happened.
st merge "$dir" -o "$tmp/merged" >"$tmp/merge.out" 2>"$tmp/merge.err"
rc=$?
[ $rc -eq 0 ] && [ -f "$tmp/merged/traces.otf2" ]
ok $? "synctrace merge merges the trace with the recovered rank (exit $rc)"
grep -q "^synctrace merge: warning: rank-000002: recovered $nrec events from a rank that was killed ($((nrec - inchunks)) of them from its records file): all it had recorded$" "$tmp/merge.err"
ok $? "synctrace merge warns that rank 2 was recovered, with the number of events"

fingerprint "$dir" >"$tmp/fp.after"
cmp -s "$tmp/fp.before" "$tmp/fp.after"
ok $? "dump and merge left the input directory as it was (contents, sizes, link counts, times)"
[ -z "$(ls -A "$rtmp")" ]
ok $? "no rebuilt archive left behind in TMPDIR"

# A kill can cut the journal's last line short: that record is dropped.
cp -r "$dir" "$tmp/cut"
size=$(stat -c %s "$tmp/cut/rank-000002.journal")
truncate -s $((size - 4)) "$tmp/cut/rank-000002.journal"
st dump "$tmp/cut" >"$tmp/cut.dump" 2>"$tmp/cut.err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^2 ' "$tmp/cut.dump")" -eq "$nrec" ] && [ ! -s "$tmp/cut.err" ]
ok $? "a journal whose last line was cut short is accepted (exit $rc, $(grep -c '^2 ' "$tmp/cut.dump") events)"

# Without its records file (a tracer with SYNCTRACE_KILL_SAFE=0, or an
# older one), a killed rank is recovered up to its last buffer flush.
cp -r "$dir" "$tmp/norec"
rm "$tmp/norec/rank-000002.records"
st merge "$tmp/norec" -o "$tmp/norec.merged" >/dev/null 2>"$tmp/norec.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^synctrace merge: warning: rank-000002: recovered $inchunks events from a rank that was killed; events after its last buffer flush are lost$" "$tmp/norec.err"
ok $? "no records file: the merge recovers the $inchunks events of the flushed chunks and says the rest is lost (exit $rc)"

# A damaged records file costs its records, never the rank: a header that
# is not one, and a chunk lost from the middle of rank 2's (its magic
# gone), whose successors then cannot be placed.
cp -r "$dir" "$tmp/badrec"
printf 'not a records file at all, but long enough to be read as a header' >"$tmp/badrec/rank-000002.records"
st merge "$tmp/badrec" -o "$tmp/badrec.merged" >/dev/null 2>"$tmp/badrec.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^synctrace merge: warning: rank-000002: recovered $inchunks events from a rank that was killed (0 of them from its records file); the rest of its records are lost: .*rank-000002.records: not a synctrace records file" "$tmp/badrec.err"
ok $? "a records file that is not one: the flushed events are recovered, the merge says why the rest is lost (exit $rc)"
cp "$dir/rank-000002.records" "$tmp/badrec/rank-000002.records"
"$PYTHON3" - "$tmp/badrec/rank-000002.records" <<'EOF2'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
page, chunk = struct.unpack_from('<QQ', data, 24)
live = sorted((struct.unpack_from('<Q', data, off + 16)[0], off)
              for off in range(page, len(data) - chunk + 1, chunk)
              if struct.unpack_from('<QQ', data, off) == (0x45564c4b48435453, 2))
struct.pack_into('<Q', data, live[1][1], 0)   # the second live chunk of location 2: free
open(path, 'wb').write(bytes(data))
print(len(live))
EOF2
st dump "$tmp/badrec" >"$tmp/badrec.dump" 2>"$tmp/badrec.err"
rc=$?
st merge "$tmp/badrec" -o "$tmp/badrec.merged2" >/dev/null 2>"$tmp/badrec.err2"
mrc=$?
got=$(grep -c '^2 ' "$tmp/badrec.dump")
[ $rc -eq 0 ] && [ $mrc -eq 0 ] && [ "$got" -ge "$inchunks" ] && [ "$got" -lt "$nrec" ] \
    && grep -q "the rest of its records are lost: .*rank-000002.records: location 2: a chunk of its records is missing$" "$tmp/badrec.err2"
ok $? "a chunk missing from the records: $got events recovered (the flushed ones and the records before the gap), the merge names the gap (exits $rc, $mrc)"

# A journal cut in its header (killed in MPI_Init) cannot describe the rank.
head -c 60 "$j" >"$tmp/cut/rank-000002.journal"
st dump "$tmp/cut" >/dev/null 2>"$tmp/cut.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/cut.err")" -eq 1 ] && grep -q "rank-000002.journal: incomplete journal header" "$tmp/cut.err"
ok $? "a journal without its complete header: one-line error ($(head -1 "$tmp/cut.err"))"

# Killed before its first flush: a journal and no events. A rank without
# events, not a reason to drop the others.
cp -r "$dir" "$tmp/noevt"
rm "$tmp/noevt/rank-000002/2.evt"
st dump "$tmp/noevt" >"$tmp/noevt.dump" 2>"$tmp/noevt.err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^2 ' "$tmp/noevt.dump")" -eq 0 ] && grep -q '^# rank 2 world_size 4 .* events 0' "$tmp/noevt.dump"
ok $? "a killed rank with no flushed events: dump shows it without events (exit $rc)"

# A rank that left nothing at all is named as missing.
cp -r "$dir" "$tmp/missing"
rm -rf "$tmp/missing/rank-000001"*
st dump "$tmp/missing" >/dev/null 2>"$tmp/missing.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/missing.err")" -eq 1 ] && grep -q "rank-000001.otf2: missing" "$tmp/missing.err"
ok $? "dump: a rank with neither archive nor journal is reported missing in one line ($(head -1 "$tmp/missing.err"))"
st merge "$tmp/missing" -o "$tmp/missing.out" >/dev/null 2>"$tmp/missing.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/missing.err")" -eq 1 ] && grep -q "rank-000001.otf2: missing" "$tmp/missing.err" && [ ! -e "$tmp/missing.out" ]
ok $? "merge: the same, one line, no output"

# The highest rank too (run.meta has the world size).
cp -r "$dir" "$tmp/missing3"
rm -rf "$tmp/missing3/rank-000003"*
st dump "$tmp/missing3" >/dev/null 2>"$tmp/missing.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/missing.err")" -eq 1 ] && grep -q "rank-000003.otf2: missing" "$tmp/missing.err"
ok $? "dump: the last rank missing is reported too ($(head -1 "$tmp/missing.err"))"
# --- one-sided communication before the kill: the recovered rank 2 keeps
# its window (definition and name from the journal) and its RMA events.
dir2=$tmp/trace-rma
timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir2" -x SYNCTRACE_BUFFER_MB=1 \
    -x SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20 \
    "$prog" $calls rma >"$tmp/out2" 2>"$tmp/err2"
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
grep -q "^KILLING rank 2 after $calls calls" "$tmp/out2" && [ ! -s "$dir2/rank-000002.otf2" ] \
    && grep -q '^window 0 3$' "$dir2/rank-000002.journal" && grep -q '^window_name 0 killed%20window$' "$dir2/rank-000002.journal"
ok $? "rma: rank 2 was killed after its one-sided calls; its journal holds the window and its name"
st merge "$dir2" -o "$tmp/merged2" >"$tmp/merge2.out" 2>"$tmp/merge2.err"
rc=$?
ok $rc "rma: synctrace merge merges the trace with the recovered rank (exit $rc)"
pyotf2=""
for p in "$PYTHON3" /usr/bin/python3; do "$p" -c "import otf2" 2>/dev/null && { pyotf2=$p; break; }; done
if [ -n "$pyotf2" ]; then
    "$pyotf2" - "$tmp/merged2" >"$tmp/rma.check" 2>&1 <<'EOF'
import collections, json, sys, otf2
with otf2.reader.open(sys.argv[1] + "/traces.otf2") as t:
    wins = [w.name for w in t.definitions.rma_wins]
    world = [g for g in t.definitions.groups if g.group_type == otf2.GroupType.COMM_LOCATIONS][0]
    rank_of = {loc._ref: r for r, loc in enumerate(world.members)}
    seen = collections.defaultdict(collections.Counter)
    for loc, ev in t.events:
        name = type(ev).__name__
        if name.startswith("Rma"):
            seen[rank_of.get(loc._ref)][(name, getattr(getattr(ev, "win", None), "name", None))] += 1
report = json.load(open(sys.argv[1] + "/report.json"))
want = {"RmaWinCreate": 1, "RmaPut": 1, "RmaGet": 1, "RmaOpCompleteRemote": 2, "RmaRequestLock": 1,
        "RmaReleaseLock": 1}
bad = [(r, k) for r in range(4) for k, n in want.items() if seen[r][(k, "killed window")] != n]
print("%s - windows %s, rank 2's RMA events %s, tachyons %s%s" % (
    "ok" if wins == ["killed window"] and not bad and report.get("tachyons_after") == 0 else "not ok",
    wins, dict((k[0], n) for k, n in seen[2].items()), report.get("tachyons_after"),
    "; wrong counts (rank, event): %s" % bad[:4] if bad else ""))
EOF
    grep -q "^ok - " "$tmp/rma.check"
    ok $? "rma: every rank, the recovered one too, has the named window and its RMA events; 0 tachyons ($(cut -c1-300 "$tmp/rma.check"))"
else
    skip "no Python otf2 module"
fi
# --- sparse collective sources before the kill (rawformat.h): an archive
# defines coll_sources_<k> only for the words its events carry, closed or
# rebuilt from the journal.
dir3=$tmp/trace-sparse
timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir3" -x SYNCTRACE_BUFFER_MB=1 \
    -x SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20 \
    "$prog" $calls sparse >"$tmp/out3" 2>"$tmp/err3"
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
j3=$dir3/rank-000002.journal
grep -q "^KILLING rank 2 after $calls calls" "$tmp/out3" && [ ! -s "$dir3/rank-000002.otf2" ] \
    && [ "$(grep -c '^source_word ' "$j3")" -eq 1 ] && grep -qx 'source_word 0 6' "$j3" && ! grep -q '^source_word ' "$j"
ok $? "sparse: rank 2 was killed after a sparse Alltoallv; its journal lists the one source word its event carries with its reference (source_word 0 6: after true_time, the slots, freed_receive_*, collapsed_calls), the first run's none"

# Which coll_sources_<k> a closed archive defines.
source_words() { otf2-print -G "$1" 2>/dev/null | sed -n 's/^ATTRIBUTE .*Name: "coll_sources_\([0-9]*\)".*/\1/p' | tr '\n' ' '; }
slots_defined() { otf2-print -G "$1" 2>/dev/null | grep -c '^ATTRIBUTE .*Name: "coll_sources_slots"'; }
defs_state=""
for r in 0 1 3; do defs_state="$defs_state rank $r: [$(source_words "$dir3/rank-00000$r.otf2")] $(slots_defined "$dir3/rank-00000$r.otf2");"; done
for r in 0 1 3; do defs_state="$defs_state first run rank $r: [$(source_words "$dir/rank-00000$r.otf2")];"; done
[ "$defs_state" = " rank 0: [] 1; rank 1: [] 1; rank 3: [0 ] 1; first run rank 0: []; first run rank 1: []; first run rank 3: [];" ]
ok $? "sparse: closed archives define coll_sources_slots and only the words their events carry:$defs_state"

st dump "$dir3" >"$tmp/dump3" 2>"$tmp/dump3.err"
rc=$?
sources() { grep "^$1 [0-9]* COLL_END .*op=alltoallv" "$tmp/$2" | sed -n 's/.* sources=\([^ ]*\).*/\1/p' | tr '\n' ' '; }
got="0:[$(sources 0 dump3)] 1:[$(sources 1 dump3)] 2:[$(sources 2 dump3)] 3:[$(sources 3 dump3)]"
[ $rc -eq 0 ] && [ "$got" = "0:[] 1:[] 2:[1 ] 3:[2 ]" ]
ok $? "sparse: the sources read back, the killed rank 2's from its rebuilt definitions (exit $rc; $got)"

# A word's reference must be the next of the dense layout: the tracer's
# events carry it, so another one is a damaged journal.
cp -r "$dir3" "$tmp/badref"
sed 's/^source_word 0 6$/source_word 0 7/' "$j3" >"$tmp/badref/rank-000002.journal"
st dump "$tmp/badref" >/dev/null 2>"$tmp/badref.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/badref.err")" -eq 1 ] && grep -q "rank-000002.journal: line [0-9]*: malformed record 'source_word 0 7'" "$tmp/badref.err"
ok $? "sparse: a source word whose reference is not the next one: one-line error ($(head -1 "$tmp/badref.err"))"

# A word outside the world is a malformed record: one line naming it.
cp -r "$dir3" "$tmp/badword"
sed 's/^source_word 0 6$/source_word 1 6/' "$j3" >"$tmp/badword/rank-000002.journal"
st dump "$tmp/badword" >/dev/null 2>"$tmp/badword.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/badword.err")" -eq 1 ] && grep -q "rank-000002.journal: line [0-9]*: malformed record 'source_word 1 6'" "$tmp/badword.err"
ok $? "sparse: a source word beyond the world's (1 word for 4 ranks): one-line error ($(head -1 "$tmp/badword.err"))"

st merge "$dir3" -o "$tmp/merged3" >"$tmp/merge3.out" 2>"$tmp/merge3.err"
rc=$?
ok $rc "sparse: synctrace merge merges the trace with the recovered sparse member (exit $rc)"

# --- killed before its first flush, records converted by an I/O thread:
# every event, the sparse Alltoallv's sources too, comes back from the
# records file alone (format/recfile.c converts them as the tracer
# would have, with the journal's source_word reference).
dir4=$tmp/trace-noflush
timeout -k 5 25 "$MPIRUN" --allow-run-as-root --oversubscribe -np 4 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir4" -x SYNCTRACE_IO_THREAD=1 \
    -x SYNCTRACE_SKEW=seed=3,offset_us=500,drift_ppm=20 \
    "$prog" 2000 sparse >"$tmp/out4" 2>"$tmp/err4"
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
st dump "$dir4" >"$tmp/dump4" 2>"$tmp/dump4.err"
rc=$?
got="0:[$(sources 0 dump4)] 1:[$(sources 1 dump4)] 2:[$(sources 2 dump4)] 3:[$(sources 3 dump4)]"
probes=$(grep -c '^2 [0-9]* ENTER .*region=MPI_Iprobe$' "$tmp/dump4")
untrue=$(grep '^2 ' "$tmp/dump4" | grep -vc ' true=')
[ $rc -eq 0 ] && grep -q "^KILLING rank 2 after 2000 calls" "$tmp/out4" && [ ! -e "$dir4/rank-000002/2.evt" ] \
    && [ "$got" = "0:[] 1:[] 2:[1 ] 3:[2 ]" ] && [ "$probes" -eq 2000 ] && [ "$untrue" -eq 0 ]
ok $? "no flush, I/O thread: rank 2's events all from its records file: $probes MPI_Iprobe of 2000, sources $got, every one with its true time (exit $rc)"
st merge "$dir4" -o "$tmp/merged4" >"$tmp/merge4.out" 2>"$tmp/merge4.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^synctrace merge: warning: rank-000002: recovered $(grep -c '^2 ' "$tmp/dump4") events from a rank that was killed ($(grep -c '^2 ' "$tmp/dump4") of them from its records file): all it had recorded$" "$tmp/merge4.err" \
    && [ "$("$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['tachyons_after'], d['unmatched_sends'] + d['unmatched_receives'])" "$tmp/merged4/report.json")" = "0 0" ]
ok $? "no flush: the merge takes all of rank 2's events from its records, no tachyon, every message matched (exit $rc)"
finish
