#!/bin/bash
# test-recover-threads.sh — a threaded rank killed with SIGKILL keeps the
# events of every thread, flushed or still in its records file (tests/mpi/mpi_kill9_threads.c, 3 ranks,
# MPI_THREAD_MULTIPLE, SYNCTRACE_BUFFER_MB=1): on rank 1 the main thread and
# 3 other threads each make 100000 MPI_Iprobe calls, flushing their buffers
# several times, a 4th thread makes one call (its location is made but
# never flushed: the call, an open polling run, is kept by its records),
# then the rank kills itself. Its journal names each
# thread's location, its records file the records of each; `synctrace dump`
# and `merge` must rebuild every location from its whole chunks continued
# by its records, as tests/test-recover.sh checks for the main thread alone
# (and, without the records file, exactly up to the last whole chunk).
. "$top_srcdir/tests/lib.sh"
: "${PYTHON3:=python3}"
N=18
plan $N

tmp=$(scratch)
if ! mpicc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -pthread -o "$tmp/mpi_kill9_threads" \
    "$top_srcdir/tests/mpi/mpi_kill9_threads.c" 2>"$tmp/build.err"; then
    for i in $(seq $N); do ok 1 "build tests/mpi/mpi_kill9_threads.c"; done
    finish
fi
prog=$tmp/mpi_kill9_threads
calls=100000
dir=$tmp/trace
rtmp=$tmp/rtmp
mkdir -p "$rtmp"
st() { TMPDIR=$rtmp timeout -k 5 60 "$SYNCTRACE_BIN" "$@"; }

start=$(date +%s)
timeout -k 5 40 "$MPIRUN" --allow-run-as-root --oversubscribe -np 3 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$dir" -x SYNCTRACE_BUFFER_MB=1 \
    -x SYNCTRACE_SKEW=seed=5,offset_us=500,drift_ppm=20 \
    "$prog" $calls >"$tmp/out" 2>"$tmp/err"
rc=$?
diag "mpirun exit status $rc after $(($(date +%s) - start)) s"
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ -z "$left" ] && grep -q "^KILLING rank 1 after $calls calls in each of 4 threads" "$tmp/out"
ok $? "rank 1's 4 threads got through their $calls calls and it was killed; mpirun exits non-zero ($rc), no process left"

# The journal names the other threads' locations, N << 32 | 1 for N = 1..4,
# after its header; the main one (id 1) is the header's.
j=$dir/rank-000001.journal
ids=$(sed -n '/^header_end /,$ s/^location \([0-9]*\)$/\1/p' "$j" | sort -n | tr '\n' ' ')
[ -s "$j" ] && [ ! -s "$dir/rank-000001.otf2" ] && grep -qx 'location 1' "$j" \
    && [ "$ids" = "4294967297 8589934593 12884901889 17179869185 " ]
ok $? "rank 1 left a journal and no anchor; the journal names its 4 thread locations ($ids)"

# Fingerprint of the input: contents and metadata (size, links, mtime, ctime).
fingerprint() {
    (cd "$1" && find . -print0 | sort -z | xargs -0 stat -c '%n %F %s %h %Y %Z' && find . -type f -print0 | sort -z | xargs -0 md5sum)
}
fingerprint "$dir" >"$tmp/fp.before"

st dump "$dir" >"$tmp/dump" 2>"$tmp/dump.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/dump.err" ] && grep -q "^# rank 1 world_size 3 " "$tmp/dump"
ok $? "synctrace dump reads the trace with rank 1 recovered (exit $rc$([ -s "$tmp/dump.err" ] && echo ": $(head -1 "$tmp/dump.err")"))"

# Every location, journaled or with an event file, is checked: the whole
# chunks' event count from the chunk headers (as tests/test-recover.sh
# computes it) must be what dump shows of that location, a location with
# no whole chunk must be absent, and each location's events must be in
# non-decreasing time, carry their true time, and be its calls.
cat >"$tmp/check.py" <<'EOF'
import os, re, struct, sys
dump, journal, base = sys.argv[1:4]
calls = int(sys.argv[4])
ok = lambda c, m: print(('ok - ' if c else 'not ok - ') + m)
rank, chunk, locs, after = None, None, [], False
for line in open(journal):
    f = line.split()
    if f[0] == 'rank': rank = int(f[1])
    if f[0] == 'chunk_size': chunk = int(f[1])
    if f[0] == 'header_end': after = True
    if f[0] == 'location': locs.append(int(f[1]))

# and every event file there, journaled or not: each one with whole chunks must come back
for name in sorted(os.listdir(base)):
    if name.endswith('.evt') and int(name[:-4]) not in locs:
        locs.append(int(name[:-4]))

def whole_chunk_events(path):
    if not os.path.exists(path):
        return 0, 0
    size, last, k = os.path.getsize(path), 0, 0
    with open(path, 'rb') as fh:
        for k in range(size // chunk):
            fh.seek(k * chunk)
            h = fh.read(18)
            first, end = struct.unpack('<QQ' if h[1] == 0x42 else '>QQ', h[2:18])
            if h[0] != 3 or first != last + 1:
                return k, last
            last = end
        return size // chunk, last

# the dump's events per location id: "R I ..." for the main one, "R.N I ..." for thread N
events, declared, names = {}, {}, {}
for line in open(dump):
    m = re.match(r'# rank %d thread (\d+) location (\d+) events (\d+)$' % rank, line)
    if m:
        names[int(m.group(1))] = int(m.group(2))
        declared[int(m.group(2))] = int(m.group(3))
        continue
    m = re.match(r'%d(?:\.(\d+))? (\d+) (\S+) time=(\d+)( true=\d+)?' % rank, line)
    if m:   # a region name is last and may hold spaces
        n = int(m.group(1) or 0)
        loc = locs[0] if n == 0 else names.get(n, -n)
        region = line.rstrip('\n').split(' region=', 1)[1] if ' region=' in line else None
        events.setdefault(loc, []).append((int(m.group(2)), m.group(3), int(m.group(4)), bool(m.group(5)), region))

expect = {loc: whole_chunk_events(os.path.join(base, '%d.evt' % loc)) for loc in locs}
flushed = [loc for loc in locs if expect[loc][1] > 0]
total = sum(expect[loc][1] for loc in locs)
print('# ' + ', '.join('%d: %d chunks, %d events' % (loc, expect[loc][0], expect[loc][1]) for loc in locs))
ok(len(flushed) == 4 and locs[0] in flushed and all(expect[loc][0] >= 2 for loc in flushed),
   "the main thread and 3 others flushed at least 2 whole chunks each (%d locations flushed)" % len(flushed))
ok(all(n == loc >> 32 and loc & 0xffffffff == rank for n, loc in names.items())
   and sorted(names.values()) == sorted(locs[1:]),
   "dump shows every thread location, the one that never flushed too, each as thread N of id N << 32 | %d: %s"
   % (rank, sorted(names.items())))
# The whole chunks, continued by the records file: every call of each
# busy location but its last, a polling run still open at the kill.
probes = lambda loc: sum(e[1] == 'ENTER' and e[4] == 'MPI_Iprobe' for e in events.get(loc, []))
bad = [loc for loc in flushed if len(events.get(loc, [])) <= expect[loc][1] or probes(loc) != calls
       or (loc != locs[0] and loc in declared and declared[loc] != len(events[loc]))]
ok(not bad and set(events) == set(locs),
   "each busy location's events = its whole chunks' and then its records' (%d + %d), all %d MPI_Iprobe calls%s"
   % (total, sum(len(v) for v in events.values()) - total, calls,
      "; differ: " + ', '.join('%d: %d events (%d in chunks), %d MPI_Iprobe' % (l, len(events.get(l, [])), expect[l][1], probes(l)) for l in bad) if bad else ""))
unsorted = [loc for loc, ev in events.items() if [e[0] for e in ev] != list(range(len(ev)))
            or any(ev[i][2] < ev[i - 1][2] for i in range(1, len(ev)))]
ok(not unsorted and events, "every location's events are numbered in order and their times never decrease%s"
   % (" (not: %s)" % unsorted if unsorted else ""))
ok(all(e[3] for ev in events.values() for e in ev if e[1] != 'FLUSH'),
   "every recovered event but the flushes carries its true time")
# The thread of one call never flushed: its one MPI_Iprobe, an open polling
# run at the kill, from its records file's current chunk.
idle = [loc for loc in locs if loc not in flushed]
ok(len(idle) == 1 and [(e[1], e[4]) for e in events.get(idle[0], [])] == [('ENTER', 'MPI_Iprobe'), ('LEAVE', 'MPI_Iprobe')],
   "the thread that made one call and never flushed: its MPI_Iprobe, from the records (%s)"
   % [(e[1], e[4]) for loc in idle for e in events.get(loc, [])])
calls = [loc for loc in flushed[1:]
         if any(e[1] not in ('ENTER', 'LEAVE', 'FLUSH') or (e[1] != 'FLUSH' and e[4] != 'MPI_Iprobe')
                for e in events.get(loc, []))
         or sum(e[1] == 'FLUSH' for e in events.get(loc, [])) < 1]
ok(not calls, "the other threads' events are their MPI_Iprobe calls and buffer flushes%s" % (" (not: %s)" % calls if calls else ""))
print('total %d' % total)
print('main %d' % expect[locs[0]][1])
print('recovered %d' % sum(len(v) for v in events.values()))
EOF
"$PYTHON3" "$tmp/check.py" "$tmp/dump" "$j" "$dir/rank-000001" $calls >"$tmp/check" 2>&1
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/check"
tap_from_checker "" "$tmp/check"
total=$(sed -n 's/^total //p' "$tmp/check")
recovered=$(sed -n 's/^recovered //p' "$tmp/check")

st merge "$dir" -o "$tmp/merged" >"$tmp/merge.out" 2>"$tmp/merge.err"
rc=$?
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }
nev=$(grep -cE '^[0-9]+(\.[0-9]+)? ' "$tmp/dump")
[ $rc -eq 0 ] && [ -f "$tmp/merged/traces.otf2" ] \
    && [ "$(json "$tmp/merged/report.json" "(d['events'], d['ranks'], d['threads'])")" = "($nev, 3, 4)" ]
ok $? "synctrace merge merges all $nev events, rank 1's 4 recovered threads included (exit $rc)"
grep -q "^synctrace merge: warning: rank-000001: recovered ${recovered:-?} events from a rank that was killed ($((${recovered:-0} - ${total:-0})) of them from its records file): all it had recorded$" "$tmp/merge.err"
ok $? "synctrace merge warns that rank 1 was recovered, with its ${recovered:-?} events of all locations"

fingerprint "$dir" >"$tmp/fp.after"
cmp -s "$tmp/fp.before" "$tmp/fp.after" && [ -z "$(ls -A "$rtmp")" ]
ok $? "dump and merge left the input directory as it was and nothing behind in TMPDIR"

# A journal of an older tracer has no location records: one location.
main=$(sed -n 's/^main //p' "$tmp/check")   # the main location's events in whole chunks
cp -r "$dir" "$tmp/old"
rm "$tmp/old/rank-000001.records"   # and no records file: the whole chunks alone
sed -i '/^header_end /,$ { /^location /d }' "$tmp/old/rank-000001.journal"
st dump "$tmp/old" >"$tmp/old.dump" 2>"$tmp/old.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/old.err" ] && [ "$(grep -c '^1 ' "$tmp/old.dump")" -eq "$main" ] \
    && ! grep -q '^1\.' "$tmp/old.dump" && ! grep -q '^# rank 1 thread' "$tmp/old.dump"
ok $? "a journal without location records recovers the main location alone ($main events, exit $rc)"

# A main thread that never flushed: the other threads' events still count
# (a tracer without records file: the whole chunks alone).
cp -r "$dir" "$tmp/nomain"
rm "$tmp/nomain/rank-000001/1.evt" "$tmp/nomain/rank-000001.records"
st dump "$tmp/nomain" >"$tmp/nomain.dump" 2>"$tmp/nomain.err"
rc=$?
threads=$(grep -cE '^1\.[0-9]+ ' "$tmp/nomain.dump")
st merge "$tmp/nomain" -o "$tmp/nomain.merged" >/dev/null 2>"$tmp/nomain.merge"
mrc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/nomain.err" ] && [ "$(grep -c '^1 ' "$tmp/nomain.dump")" -eq 0 ] \
    && [ "$threads" -eq $((total - main)) ] && [ $mrc -eq 0 ] \
    && grep -q "rank-000001: recovered $threads events from a rank that was killed" "$tmp/nomain.merge"
ok $? "main thread never flushed: dump shows the threads' $threads events, merge takes them (exits $rc, $mrc)"

# No location flushed at all: a rank without events, and the others merge.
cp -r "$dir" "$tmp/none"
rm "$tmp/none/rank-000001/"*.evt "$tmp/none/rank-000001.records"
st dump "$tmp/none" >"$tmp/none.dump" 2>"$tmp/none.err"
rc=$?
st merge "$tmp/none" -o "$tmp/none.merged" >/dev/null 2>"$tmp/none.merge"
mrc=$?
[ $rc -eq 0 ] && [ "$(grep -cE '^1(\.[0-9]+)? ' "$tmp/none.dump")" -eq 0 ] && [ $mrc -eq 0 ] \
    && grep -q "^synctrace merge: warning: rank-000001: killed before its first buffer flush.*no events survived" "$tmp/none.merge"
ok $? "no location flushed: rank 1 has no events, the others merge, and the merge says so (exits $rc, $mrc)"

# A location record of another rank's id is a corrupt journal.
cp -r "$dir" "$tmp/bad"
echo "location 4294967298" >>"$tmp/bad/rank-000001.journal"
st dump "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && grep -q "rank-000001.journal: line [0-9]*: malformed record 'location 4294967298'" "$tmp/bad.err"
ok $? "a location record of another rank: one-line error ($(head -1 "$tmp/bad.err"))"

# With the I/O thread: converted chunks wait for their event chunk to be
# written before they go back (records.c), so 5 recording threads in a
# 1 MB buffer can have every chunk waiting; a recorder then takes one over
# the budget instead of waiting for conversions that free nothing (it
# hung there before: the job ran into its time limit). Every call of
# every thread comes back.
timeout -k 5 40 "$MPIRUN" --allow-run-as-root --oversubscribe -np 3 \
    -x LD_PRELOAD="$SYNCTRACE_LIB" -x SYNCTRACE_DIR="$tmp/io" -x SYNCTRACE_BUFFER_MB=1 -x SYNCTRACE_IO_THREAD=1 \
    "$prog" $calls >"$tmp/io.out" 2>"$tmp/io.err"
rc=$?
left=$(pgrep -f "$prog" | tr '\n' ' ')
for pid in $left; do kill -9 "$pid" 2>/dev/null; done   # only this test's own program
st dump "$tmp/io" >"$tmp/io.dump" 2>/dev/null
probes=$(grep -cE '^1(\.[0-9]+)? [0-9]* ENTER .*region=MPI_Iprobe$' "$tmp/io.dump")
[ $rc -ne 124 ] && grep -q "^KILLING rank 1 after $calls calls in each of 4 threads" "$tmp/io.out" && [ "$probes" -eq $((4 * calls + 1)) ]
ok $? "I/O thread, 1 MB buffer: rank 1's 5 threads record to the kill (exit $rc), and all $probes of their $((4 * calls + 1)) MPI_Iprobe come back"
finish
