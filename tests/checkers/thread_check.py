#!/usr/bin/env python3
"""thread_check.py — check the raw trace of tests/mpi/mpi_threads.c.

    thread_check.py DIR NP NTHREADS ROUNDS HANDOFF

Reads every rank archive DIR/rank-NNNNNN.otf2 with otf2-print (events and
definitions of all its locations) and checks:
  - each rank has a location per thread that called MPI: the main one (id =
    rank) and one per worker (id = n << 32 | rank), each holding as many
    events as its definition declares (nothing lost);
  - per location, Enter/Leave nest and timestamps never decrease;
  - every request posted (MpiIsend, MpiIrecvRequest) completes exactly once,
    and the hand-off requests complete in another location than they were
    posted in;
  - every message sent has its receive (the tags are unique per message)
    and, on the one clock all ranks share here, is never received before it
    was sent: no tachyon;
  - every rank records the same number of collectives on each communicator.
Prints "ok - ..." / "not ok - ..." lines with "# ..." details; exit status 0
unless an archive cannot be read.
"""
import collections
import os
import re
import subprocess
import sys

OTF2_PRINT = os.environ.get('OTF2_PRINT') or 'otf2-print'
EVENT = re.compile(r'^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$')


def field(rest, name):
    m = re.search(name + r': (?:"([^"]*)"|(\d+))', rest)
    if not m:
        return None
    return m.group(1) if m.group(1) is not None else int(m.group(2))


def read_rank(path):
    events = subprocess.run([OTF2_PRINT, path], check=True, capture_output=True, text=True).stdout
    defs = subprocess.run([OTF2_PRINT, '-G', path], check=True, capture_output=True, text=True).stdout
    declared = {}
    for line in defs.splitlines():
        m = re.match(r'^LOCATION\s+(\d+)\s+.*# Events: (\d+)', line)
        if m:
            declared[int(m.group(1))] = int(m.group(2))
    locs = collections.defaultdict(list)
    for line in events.splitlines():
        m = EVENT.match(line)
        if m:
            locs[int(m.group(2))].append((m.group(1), int(m.group(3)), m.group(4)))
    return declared, locs


def report(ok, what, details=()):
    for d in list(details)[:10]:
        print('# ' + d)
    print('%s - %s' % ('ok' if ok else 'not ok', what))


def main(argv):
    if len(argv) != 6:
        sys.stderr.write('usage: thread_check.py DIR NP NTHREADS ROUNDS HANDOFF\n')
        return 2
    d, np_, nthreads, rounds, handoff = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5])
    ranks = {}
    try:
        for r in range(np_):
            ranks[r] = read_rank(os.path.join(d, 'rank-%06d.otf2' % r))
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write('thread_check.py: %s\n' % e)
        return 1

    bad = []
    for r, (declared, locs) in ranks.items():
        want = {r} | {(n << 32) | r for n in range(1, nthreads + 1)}
        if set(declared) != want:
            bad.append('rank %d: locations %s, expected %s' % (r, sorted(declared), sorted(want)))
        for loc, n in declared.items():
            if len(locs.get(loc, [])) != n:
                bad.append('rank %d location %d: %d events read, %d declared' % (r, loc, len(locs.get(loc, [])), n))
    report(not bad, 'a location per thread on every rank (%d), each with all its events' % (nthreads + 1), bad)

    bad = []
    for r, (_, locs) in ranks.items():
        for loc, evs in locs.items():
            stack, last = [], 0
            for kind, t, rest in evs:
                if t < last:
                    bad.append('rank %d location %d: time goes back at %s %d' % (r, loc, kind, t))
                last = t
                region = field(rest, 'Region')
                if kind == 'ENTER':
                    stack.append(region)
                elif kind == 'LEAVE':
                    if not stack or stack.pop() != region:
                        bad.append('rank %d location %d: LEAVE %s does not match' % (r, loc, region))
            if stack:
                bad.append('rank %d location %d: regions left open: %s' % (r, loc, stack))
    report(not bad, 'per location, regions nest and time never goes back', bad)

    bad, handed = [], 0
    for r, (_, locs) in ranks.items():
        posted, done = {}, collections.Counter()
        done_loc = {}
        for loc, evs in locs.items():
            for kind, t, rest in evs:
                req = field(rest, 'Request')
                if kind in ('MPI_ISEND', 'MPI_IRECV_REQUEST'):
                    if req in posted:
                        bad.append('rank %d: request %d posted twice' % (r, req))
                    posted[req] = loc
                elif kind in ('MPI_ISEND_COMPLETE', 'MPI_IRECV'):
                    done[req] += 1
                    done_loc[req] = loc
        for req, loc in posted.items():
            if done[req] != 1:
                bad.append('rank %d: request %d completed %d times' % (r, req, done[req]))
            elif done_loc[req] != loc:
                handed += 1
        for req in done:
            if req not in posted:
                bad.append('rank %d: request %d completed, never posted' % (r, req))
    report(not bad, 'every request completes exactly once', bad)
    report(handed >= handoff * np_, 'requests posted by one thread and completed by another: %d (want %d)'
           % (handed, handoff * np_))

    sends, recvs = {}, {}
    bad = []
    for r, (_, locs) in ranks.items():
        for loc, evs in locs.items():
            for kind, t, rest in evs:
                if kind in ('MPI_SEND', 'MPI_ISEND', 'MPI_RECV', 'MPI_IRECV'):
                    comm = field(rest, 'Communicator')
                    if comm != 'MPI_COMM_WORLD':
                        continue
                    if kind in ('MPI_SEND', 'MPI_ISEND'):
                        key = (r, field(rest, 'Receiver'), field(rest, 'Tag'))
                        table = sends
                    else:
                        key = (field(rest, 'Sender'), r, field(rest, 'Tag'))
                        table = recvs
                    if key in table:
                        bad.append('two messages %s' % (key,))
                    table[key] = t
    expected = np_ * (2 * nthreads * rounds + handoff)
    unmatched = sorted(set(sends) ^ set(recvs))
    report(not bad and not unmatched and len(sends) == expected,
           'every message matched: %d sends, %d receives (want %d)' % (len(sends), len(recvs), expected),
           bad + ['unmatched %s' % (k,) for k in unmatched])
    tachyons = [k for k in sends if k in recvs and recvs[k] < sends[k]]
    report(not tachyons, 'no message received before it was sent (%d checked)' % len(sends),
           ['tachyon %s: sent %d, received %d' % (k, sends[k], recvs[k]) for k in tachyons])

    per_comm, handles = {}, {}
    for r, (_, locs) in ranks.items():
        ends = [rest for evs in locs.values() for kind, _, rest in evs if kind == 'MPI_COLLECTIVE_END']
        per_comm[r] = collections.Counter(field(rest, 'Communicator') for rest in ends)
        # the communicators' own creation / free collectives are counted
        # apart (each thread's communicator: its free, DESTROY_HANDLE)
        handles[r] = collections.Counter(field(rest, 'Communicator') for rest in ends
                                         if 'CREATE_HANDLE' in rest or 'DESTROY_HANDLE' in rest)
    same = all(per_comm[r] == per_comm[0] for r in per_comm)
    thread_colls = sum(n - handles[0][name] for name, n in per_comm[0].items() if name != 'MPI_COMM_WORLD')
    report(same and thread_colls == nthreads * rounds,
           'every rank records the same collectives per communicator (%d on the threads\' own)' % thread_colls,
           ['rank %d: %s' % (r, dict(c)) for r, c in per_comm.items()] if not same else [])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
