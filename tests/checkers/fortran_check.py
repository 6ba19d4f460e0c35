#!/usr/bin/env python3
"""fortran_check.py — do two traces carry the same events?

    fortran_check.py raw    REF_DUMP OTHER_DUMP        `synctrace dump` outputs of raw traces
    fortran_check.py merged REF_PRINT OTHER_PRINT      `otf2-print` outputs of merged archives

Compares, per rank (location), the sequence of events with everything but
the timestamps (and the `true_time` attribute): kind, region, peer, tag,
communicator, bytes, request id, collective root and sizes. The tracer's own
clock synchronisation regions and their messages are left out (how many
ping-pongs a round takes is the tracer's business); the raw dump's
communicator definitions (members, names) are compared too. Used by tests/test-fortran.sh to
require that a Fortran program records exactly what its C twin records.
Prints "ok - ..." / "not ok - ..." lines with the first difference as "# ...";
exit status 0 unless an input cannot be read.
"""
import collections
import re
import sys

SYNC_REGION = 'synctrace: clock synchronisation'


def raw_events(path):
    """{rank: [normalised event]} and the communicator lines of a raw dump."""
    events, comms = collections.defaultdict(list), []
    depth = collections.Counter()
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                if re.match(r'^# rank \d+ comm(_info)? ', line):   # members, and names
                    comms.append(line)
                continue
            parts = line.split()
            if len(parts) < 3:
                continue
            rank, kind = int(parts[0]), parts[2]
            fields = [p for p in parts[3:] if not p.startswith(('time=', 'true='))]
            region = next((p[7:] for p in fields if p.startswith('region=')), None)
            rest = ' '.join(fields)
            if 'region=' + SYNC_REGION in rest or region == 'synctrace:':
                depth[rank] += 1 if kind == 'ENTER' else -1
                continue
            if depth[rank]:
                continue
            events[rank].append(kind + ' ' + rest)
    return events, comms


def merged_events(path):
    """{location: [normalised event]} of an otf2-print listing."""
    events = collections.defaultdict(list)
    depth = collections.Counter()
    with open(path) as f:
        for line in f:
            m = re.match(r'^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$', line.rstrip('\n'))
            if not m:
                continue
            kind, loc, rest = m.group(1), int(m.group(2)), m.group(4)
            rest = re.sub(r',?\s*\(?"?true_time"?[^,]*', '', rest)   # the SYNCTRACE_SKEW attribute
            rest = re.sub(r'\s*ADDITIONAL ATTRIBUTES:.*', '', rest)
            if SYNC_REGION in rest and kind in ('ENTER', 'LEAVE'):
                depth[loc] += 1 if kind == 'ENTER' else -1
                continue
            if depth[loc]:
                continue
            events[loc].append(kind + ' ' + rest)
    return events


def compare(name, ref, other):
    ok = True
    if sorted(ref) != sorted(other):
        print('not ok - %s: ranks %s, expected %s' % (name, sorted(other), sorted(ref)))
        return False
    for r in sorted(ref):
        a, b = ref[r], other[r]
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print('# rank %d, event %d: expected "%s", got "%s"' % (r, i, x, y))
                ok = False
                break
        else:
            if len(a) != len(b):
                print('# rank %d: %d events, expected %d' % (r, len(b), len(a)))
                ok = False
    n = sum(len(v) for v in ref.values())
    print('%s - %s: the same %d events on %d ranks as the C program' % ('ok' if ok else 'not ok', name, n, len(ref)))
    return ok


def main(argv):
    if len(argv) != 4 or argv[1] not in ('raw', 'merged'):
        sys.stderr.write('usage: fortran_check.py raw|merged REF OTHER\n')
        return 2
    try:
        if argv[1] == 'raw':
            (ref, ref_comms), (other, other_comms) = raw_events(argv[2]), raw_events(argv[3])
            compare('raw trace', ref, other)
            same = ref_comms == other_comms and len(ref_comms) > 0
            print('%s - raw trace: the same %d communicator definitions' % ('ok' if same else 'not ok', len(ref_comms)))
        else:
            compare('merged trace', merged_events(argv[2]), merged_events(argv[3]))
        # The reference must hold what the programs exercise, or equality proves little.
        kinds = collections.Counter(e.split()[0] for evs in ref.values() for e in evs) if argv[1] == 'raw' else None
        if kinds is not None:
            want = {'SEND': 1, 'RECV': 1, 'ISEND': 1, 'IRECV': 1, 'ISEND_COMPLETE': 1, 'COLL_END': 10}
            short = [k for k, n in want.items() if kinds[k] < n * len(ref)]
            print('%s - raw trace: every rank records sends, receives, requests and collectives%s'
                  % ('not ok' if short else 'ok', ' (too few: %s)' % ', '.join(short) if short else ''))
    except OSError as e:
        sys.stderr.write('fortran_check.py: %s\n' % e)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
