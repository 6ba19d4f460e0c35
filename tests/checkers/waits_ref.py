#!/usr/bin/env python3
"""waits_ref.py — a brute-force reference for `synctrace waits`, over
otf2-print's text, and the checks of tests/test-waits.sh.

    waits_ref.py OTF2_PRINT SYNCTRACE OUT RAW PATTERN=INJECTED_S TOL_S

Reads OUT/traces.otf2 (merged times and the true_time attribute) and the
raw trace RAW through `synctrace dump` (each rank's own, unsynchronised
clock), computes every pattern's total on each time base with the same
rules as tools/waits (written again, simply: all pairs, no sorting
tricks), and prints TAP-ish lines:
  - the C tool's totals (OUT/waits.json) equal the reference's on merged times;
  - the true total lies in the tool's [lo, hi], and the tool's true_seconds
    equal the reference's;
  - the injected value lies within TOL of [lo, hi] (untraced timing noise);
  - the same pattern computed on the raw clocks misses the true total
    by more than TOL: without the synchronisation the figure is wrong.
Messages on every communicator but the tracer's own (each peer the
location otf2-print names for it: one thread a rank, the world rank),
collectives on every communicator but the tracer's own, and, for
MPI_Win_fence and post/start/complete/wait, one window on MPI_COMM_WORLD
are followed (the test programs use nothing else: a window rank is the
world rank). A non-blocking collective counts from
the entry of the MPI_Wait* completing it (none in MPI_Test*) for the
others' MPI_I... entries; a collective's number on its communicator is
its place in its rank's calls, as posted. A neighbourhood collective
(MPI_Neighbor_*) waits for its in-neighbours only: on the merged archive
found from its CART_COORDINATE definitions (coordinates one step apart in
one dimension, wrapping where periodic) and for a graph communicator from
OUT/neighbours.txt, which must agree with the raw trace's in_neighbours
lines (checked); on the raw trace from those lines."""
import glob
import json
import re
import subprocess
import sys

EVENT = re.compile(r'^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$')
TRUE = re.compile(r'"true_time" <\d+>; UINT64; (\d+)')
COMM_ID = re.compile(r'Communicator: "([^"]*)" <([^>]*)>')
PEER_LOC = re.compile(r'(?:Sender|Receiver): \d+ \("[^"]*" <(\d+)>\)')
P2P = ('MPI_SEND', 'MPI_ISEND', 'MPI_IRECV_REQUEST', 'MPI_RECV', 'MPI_IRECV', 'MPI_ISEND_COMPLETE')
TPS = re.compile(r'Ticks per Seconds: (\d+)')

COLL = {'BARRIER': 'wait_barrier', 'ALLREDUCE': 'wait_nxn', 'ALLGATHER': 'wait_nxn', 'ALLGATHERV': 'wait_nxn',
        'ALLTOALL': 'wait_nxn', 'ALLTOALLV': 'wait_nxn', 'ALLTOALLW': 'wait_nxn', 'REDUCE_SCATTER': 'wait_nxn',
        'REDUCE_SCATTER_BLOCK': 'wait_nxn', 'BCAST': 'late_broadcast', 'SCATTER': 'late_scatter',
        'SCATTERV': 'late_scatter', 'REDUCE': 'early_reduce', 'GATHER': 'early_gather', 'GATHERV': 'early_gather',
        'SCAN': 'early_scan', 'EXSCAN': 'early_scan'}


def events(otf2_print, anchor, scale):
    """Per location, its events as (kind, {'g': ns, 't': true ns or None}, text)."""
    out = subprocess.run([otf2_print, anchor], capture_output=True, text=True, check=True).stdout
    per, last = {}, None
    for line in out.splitlines():
        m = EVENT.match(line)
        if m:
            loc = int(m.group(2))
            last = [m.group(1), {'g': int(m.group(3)) * scale, 't': None}, m.group(4)]
            per.setdefault(loc, []).append(last)
        elif last and 'ADDITIONAL ATTRIBUTES' in line:
            t = TRUE.search(line)
            if t:
                last[1]['t'] = int(t.group(1))
    return per


def topologies(otf2_print, anchor):
    """Per communicator name, {world rank: set of in-neighbours' world
    ranks} from the Cartesian definitions (otf2-print -G)."""
    out = subprocess.run([otf2_print, '-G', anchor], capture_output=True, text=True, check=True).stdout
    groups, comms, dims, topo, coords = {}, {}, {}, {}, {}
    for line in out.splitlines():
        f = line.split(None, 2)
        if len(f) < 3:
            continue
        if f[0] == 'GROUP':
            groups[int(f[1])] = [int(x) for x in re.findall(r'(\d+) \("', f[2])]
        elif f[0] == 'COMM':
            m = re.match(r'Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>', f[2])
            comms[int(f[1])] = (m.group(1), int(m.group(2)))
        elif f[0] == 'CART_DIMENSION':
            m = re.search(r'Size: (\d+), Periodicity: (\w+)', f[2])
            dims[int(f[1])] = (int(m.group(1)), m.group(2) == 'TRUE')
        elif f[0] == 'CART_TOPOLOGY':
            m = re.search(r'Communicator: "[^"]*" <(\d+)>, \d+ Dimensions?: \((.*)\)', f[2])
            topo[int(f[1])] = (int(m.group(1)), [int(x) for x in re.findall(r'<(\d+)>', m.group(2))])
    for line in out.splitlines():
        if line.startswith('CART_COORDINATE'):
            m = re.search(r'<(\d+)>, Rank: (\d+) .*Coordinate: \(([\d, ]*)\)', line)
            coords.setdefault(int(m.group(1)), {})[int(m.group(2))] = [int(x) for x in m.group(3).split(',')]
    nbrs = {}
    for t, (comm, ds) in topo.items():
        name, group = comms[comm]
        world = groups[group]
        shape = [dims[d] for d in ds]
        place = coords.get(t, {})
        ins = {}
        for r, c in place.items():
            ins[world[r]] = set()
            for q, e in place.items():
                steps = [(e[k] - c[k]) % shape[k][0] if shape[k][1] else e[k] - c[k] for k in range(len(c))]
                moved = [k for k in range(len(c)) if steps[k] != 0]
                if len(moved) == 1 and steps[moved[0]] in (1, -1, shape[moved[0]][0] - 1):
                    ins[world[r]].add(world[q])
        nbrs['"%s" <%d>' % (name, comm)] = ins
    graphs = {}
    try:
        with open(anchor.rsplit('/', 1)[0] + '/neighbours.txt') as f:
            for line in f.read().splitlines()[1:]:
                c, r, ins = line.split()
                name = comms[int(c)][0]
                graphs.setdefault('"%s" <%s>' % (name, c), {})[int(r)] = (
                    set() if ins == '-' else {int(x) for x in ins.split(',')})
    except FileNotFoundError:
        pass
    nbrs.update(graphs)
    return nbrs, graphs


def comm_of(text):
    """A communicator's name and, in an archive, reference: names may repeat ("")."""
    m = re.search(r'Communicator: ("[^"]*"(?: <\d+>)?)', text)
    return m.group(1) if m else None


def field(text, name):
    m = re.search(name + r': (\d+|NONE)', text)
    return None if not m or m.group(1) == 'NONE' else int(m.group(1))


def p2p_key(text):
    """A message event's (peer's world rank, communicator), None on the tracer's own."""
    c, peer = COMM_ID.search(text), PEER_LOC.search(text)
    if not c or not peer or c.group(1).startswith('synctrace'):
        return None
    return int(peer.group(1)), c.group(2)


def records(per):
    """Sends, receives, collective members and PSCW epochs, as tools/waits reads them."""
    sends, recvs, colls = {}, {}, {}
    accs, exps = {}, {}     # (origin, target) -> that channel's epochs in order
    for loc, evs in per.items():
        stack, internal, frame, posted, seq = [], 0, 0, {}, 0
        calls = []          # collectives in call (posting) order: their members once complete
        isends, held = {}, []   # Isends by request, not completed; sends waiting for their call's exit
        ending = []             # collective members waiting for the exit of the call that ended them
        acc = exp = None    # the open access / exposure epoch
        partners = []       # the closing call's RmaSyncs
        for kind, tm, text in evs:
            if kind == 'ENTER':
                name = re.search(r'Region: "([^"]*)"', text).group(1)
                frame += 1
                stack.append((name, tm, frame))
                internal += name.startswith('synctrace')
                if not internal:
                    if name == 'MPI_Win_start':
                        acc = {'open': tm, 'open_leave': tm, 'region': name, 'ops': []}
                    elif name == 'MPI_Win_post':
                        exp = {'open': tm}
                    elif name in ('MPI_Win_complete', 'MPI_Win_wait', 'MPI_Win_test'):
                        partners = []
            elif kind == 'LEAVE':
                if stack:
                    name, enter, fid = stack.pop()
                    internal -= name.startswith('synctrace')
                    if not internal:
                        for snd in [x for x in held if x['done_fid'] == fid]:
                            snd['leave'] = tm
                            held.remove(snd)
                        for m in [x for x in ending if x['fid'] == fid]:
                            m['leave'] = tm
                            ending.remove(m)
                        for op in (acc or {}).get('ops', []):
                            if op['fid'] == fid:
                                op['leave'] = tm
                        if name == 'MPI_Win_start' and acc:
                            acc['open_leave'] = tm
                        elif name == 'MPI_Win_complete' and acc:
                            for t in partners:
                                last = [op['leave'] for op in acc['ops'] if op['target'] == t]
                                accs.setdefault((loc, t), []).append(dict(acc, close=enter, close_region=name,
                                                                          last_op=last[-1] if last else None,
                                                                          rank=loc, id=fid))
                            acc = None
                        elif name in ('MPI_Win_wait', 'MPI_Win_test') and exp and (partners or name == 'MPI_Win_wait'):
                            for o in partners:
                                exps.setdefault((o, loc), []).append(dict(exp, close=enter, close_region=name,
                                                                          blocking=name == 'MPI_Win_wait',
                                                                          rank=loc, id=fid))
                            exp = None
                continue
            if internal or not stack:
                continue
            name, enter, fid = stack[-1]
            if kind in ('RMA_PUT', 'RMA_GET', 'RMA_ATOMIC') and acc:
                acc['ops'].append({'fid': fid, 'enter': enter, 'leave': enter, 'region': name,
                                   'target': field(text, 'Remote')})
            if kind == 'RMA_SYNC' and name in ('MPI_Win_complete', 'MPI_Win_wait', 'MPI_Win_test') and (
                    'NOTIFY_OUT' in text or 'NOTIFY_IN' in text):
                partners.append(field(text, 'Remote'))
            if kind == 'RMA_COLLECTIVE_END' and 'Operation: BARRIER' in text:   # MPI_Win_fence
                win = re.search(r'Window: .*?<(\d+)>', text).group(1)
                k = colls.setdefault(('fences', loc, win), 0)
                colls[('fences', loc, win)] = k + 1
                colls.setdefault(('f', win, k), []).append({'rank': loc, 'op': 'FENCE', 'root': None,
                                                            'enter': enter, 'fid': fid})
                ending.append(colls[('f', win, k)][-1])
            if kind == 'NON_BLOCKING_COLLECTIVE_REQUEST':
                calls.append({'req': field(text, 'Request'), 'post': enter, 'neighbor': 'eighbor_' in name,
                              'm': None})
                continue
            if kind in ('MPI_COLLECTIVE_END', 'NON_BLOCKING_COLLECTIVE_COMPLETE'):
                comm = comm_of(text)
                if comm.startswith('"synctrace') or comm.startswith('"MPI_COMM_SELF"'):
                    continue   # (on MPI_COMM_SELF every rank is alone: nobody to wait for)
                m = {'rank': loc, 'op': re.search(r'Operation: (\w+)', text).group(1), 'root': field(text, 'Root'),
                     'enter': enter, 'post': enter, 'comm': comm, 'blocking': True, 'neighbor': 'eighbor_' in name,
                     'fid': fid}
                rcv = re.search(r'Received: (\d+)', text)
                # nothing comes to it (not a barrier, which orders by itself): it may leave before the
                # others enter, and waits until it leaves at most
                m['nothing'] = bool(rcv) and int(rcv.group(1)) == 0 and m['op'] != 'BARRIER'
                ending.append(m)
                if kind == 'MPI_COLLECTIVE_END':
                    calls.append({'m': m})
                else:
                    c = next((c for c in calls if c.get('req') == field(text, 'Request') and c['m'] is None), None)
                    if c:
                        m.update(post=c['post'], neighbor=c['neighbor'],
                                 blocking=not (name.startswith('MPI_Test') or name.startswith('MPI_I')))
                        c['m'] = m
                continue
            if kind == 'MPI_ISEND_COMPLETE':
                snd = isends.pop(field(text, 'Request'), None)
                if snd:
                    snd.update(done=enter, done_region=name, done_fid=fid)
                    held.append(snd)
                continue
            if kind == 'MPI_IRECV_REQUEST':   # (it names no communicator: every Irecv's)
                posted[field(text, 'Request')] = enter
                continue
            if kind in P2P and p2p_key(text):
                peer, comm = p2p_key(text)
                if kind in ('MPI_SEND', 'MPI_ISEND'):
                    snd = {'enter': enter, 'region': name, 'rank': loc, 'leave': None, 'done': None}
                    if kind == 'MPI_SEND':
                        snd.update(done=enter, done_region=name, done_fid=fid)
                        held.append(snd)
                    else:
                        isends[field(text, 'Request')] = snd
                    sends.setdefault((loc, peer, field(text, 'Tag'), comm), []).append(snd)
                else:
                    post = posted.pop(field(text, 'Request'), enter) if kind == 'MPI_IRECV' else enter
                    recvs.setdefault((peer, loc, field(text, 'Tag'), comm), []).append(
                        {'enter': enter, 'post': post, 'frame': fid, 'region': name, 'order': seq})
                    seq += 1
                continue
        nth = {}
        for c in calls:
            m = c['m']
            if m:
                k = nth.get(m['comm'], 0)
                nth[m['comm']] = k + 1
                colls.setdefault(('i', m['comm'], k), []).append(m)
    return sends, recvs, colls, accs, exps


def pscw(accs, exps, base, add):
    """Late Post, Early Wait, Late Complete (tools/waits/waits_pscw.c's rules,
    Scalasca's), the k-th epochs of a channel paired."""
    byacc, byexp = {}, {}
    for ch, al in accs.items():
        for a, x in zip(al, exps.get(ch, [])):
            byacc.setdefault((a['rank'], a['id']), []).append((a, x))
            byexp.setdefault((x['rank'], x['id']), []).append((x, a))
    for pairs in byacc.values():
        a = pairs[0][0]
        last = max(x['open']['g'] for _, x in pairs)
        call = a['close']
        if last < a['open_leave']['g']:
            call = a['open']
        else:
            call = next((op['enter'] for op in a['ops'] if op['leave']['g'] > last), call)
        add('late_post', max(x['open'][base] - call[base] for _, x in pairs))
    for pairs in byexp.values():
        x = pairs[0][0]
        if not x['blocking']:
            continue
        c = max(a['close'][base] for _, a in pairs)
        ops = [a['last_op'][base] for _, a in pairs if a['last_op']]
        add('early_wait', c - x['close'][base])
        add('late_complete', c - max(ops + [x['close'][base]]))


def totals(rec, base, nbrs):
    sends, recvs, colls, accs, exps = rec
    tot = {}

    def add(p, v):
        tot[p] = tot.get(p, 0.0) + max(0.0, v)
    msgs = []
    for key, rs in recvs.items():
        for k, r in enumerate(rs):
            if k < len(sends.get(key, [])):
                msgs.append((key[1], r, sends[key][k]))
    byframe, lr = {}, {}
    for dst, r, s in msgs:
        byframe.setdefault((dst, r['frame']), []).append((r, s))
    for (dst, fid), ms in byframe.items():
        r0 = ms[0][0]
        blocking = not (r0['region'].startswith('MPI_Test') or r0['region'].startswith('MPI_I'))
        if blocking:
            best = max(ms, key=lambda rs: rs[1]['enter']['g'] - rs[0]['enter']['g'])
            wait = max(s['enter'][base] - r['enter'][base] for r, s in ms)
            last = max(r['order'] for r, s in ms)
            wrong = any(r['order'] > last and s['enter']['g'] < best[1]['enter']['g']
                        for d2, r, s in msgs if d2 == dst)
            add('late_sender_wrong_order' if wrong else 'late_sender', wait)
        for r, s in ms:
            if s['region'] == 'MPI_Ssend':
                add('late_receiver', r['post'][base] - s['enter'][base])
            elif s['region'] in ('MPI_Issend', 'MPI_Send', 'MPI_Isend') and s['done'] and not (
                    s['done_region'].startswith('MPI_Test') or s['done_region'].startswith('MPI_I')):
                # Issend: waits in its completing call until the posting; a standard send
                # only while that call was still running at the posting (left after it)
                v = r['post'][base] - s['done'][base]
                if s['region'] != 'MPI_Issend' and not (s['leave'] and s['leave'][base] > r['post'][base]):
                    v = 0.0
                lr.setdefault((s['rank'], s['done_fid']), []).append(v)
    for vs in lr.values():   # one wait per completing call, for its latest receive
        add('late_receiver', max(vs))
    fencers = {}
    for key in colls:
        if isinstance(key, tuple) and key[0] == 'fences':
            fencers.setdefault(key[2], set()).add(key[1])
    for key, ms in colls.items():
        if not isinstance(key, tuple) or key[0] == 'fences':
            continue
        if key[0] == 'f' and len(ms) != len(fencers[key[1]]):
            continue
        p = 'wait_fence' if key[0] == 'f' else COLL.get(ms[0]['op'])
        if not p:
            continue
        root = [m for m in ms if m['rank'] == ms[0]['root']]
        e = {m['rank']: m['enter'][base] for m in ms}              # where each waits from
        post = {m['rank']: m.get('post', m['enter'])[base] for m in ms}   # what the others wait for
        waits = {m['rank'] for m in ms if m.get('blocking', True)}  # MPI_Test* does not wait
        # a member that receives nothing waits until it leaves at most
        stay = {m['rank']: m['leave'][base] - m['enter'][base] if m.get('leave') and m.get('nothing')
                else float('inf') for m in ms}

        def add_capped(p, v, r):
            add(p, min(v, stay[r]))
        if any(m.get('neighbor') for m in ms):
            if p == 'wait_nxn':
                ins = nbrs.get(ms[0]['comm'], {})
                for r in waits:
                    if ins.get(r):
                        add_capped(p, max(post[q] for q in ins[r]) - e[r], r)
        elif p in ('wait_barrier', 'wait_nxn', 'wait_fence'):
            for r in waits:
                add_capped(p, max(post.values()) - e[r], r)
        elif p in ('late_broadcast', 'late_scatter') and root:
            for r in waits:
                if r != root[0]['rank']:
                    add_capped(p, post[root[0]['rank']] - e[r], r)
        elif p in ('early_reduce', 'early_gather') and root and len(ms) > 1 and root[0]['rank'] in waits:
            add_capped(p, min(v for r, v in post.items() if r != root[0]['rank']) - e[root[0]['rank']], root[0]['rank'])
        elif p == 'early_scan':
            for r in waits:
                if r > 0:
                    add_capped(p, max(post[q] for q in post if q < r) - e[r], r)
    pscw(accs, exps, base, add)
    return {p: v * 1e-9 for p, v in tot.items()}


def raw_events(synctrace, rawdir):
    """The raw trace's events, each rank's own clock as recorded
    (`synctrace dump`: no ClockOffsets applied, unlike an OTF2 reader), in
    the shape events() gives."""
    out = subprocess.run([synctrace, 'dump', rawdir], capture_output=True, text=True, check=True).stdout
    scale, per, nbrs = {}, {}, {}
    names = {'SEND': 'MPI_SEND', 'ISEND': 'MPI_ISEND', 'RECV': 'MPI_RECV', 'IRECV': 'MPI_IRECV',
             'IRECV_REQUEST': 'MPI_IRECV_REQUEST', 'COLL_END': 'MPI_COLLECTIVE_END', 'ENTER': 'ENTER',
             'LEAVE': 'LEAVE', 'NBC_REQUEST': 'NON_BLOCKING_COLLECTIVE_REQUEST',
             'NBC_COMPLETE': 'NON_BLOCKING_COLLECTIVE_COMPLETE', 'ISEND_COMPLETE': 'MPI_ISEND_COMPLETE'}
    for line in out.splitlines():
        m = re.match(r'# rank (\d+) in_neighbours comm (.*) =([\d,]*)$', line)
        if m:
            nbrs.setdefault('"%s"' % m.group(2), {})[int(m.group(1))] = {int(x) for x in m.group(3).split(',') if x}
            continue
        if line.startswith('# rank ') and ' resolution ' in line:
            f = line.split()
            scale[int(f[2])] = 1e9 / int(f[f.index('resolution') + 1])
            continue
        f = line.split(' ', 3)
        if len(f) < 4 or not f[0].isdigit():
            continue
        rank, kind, rest = int(f[0]), f[2], f[3]
        kv = dict(x.split('=', 1) for x in rest.split(' ') if '=' in x)
        tm = {'g': int(kv['time']) * scale.get(rank, 1.0), 't': None}
        # an RMA collective's end (rma=3) carries req = operation << 32 | sync level: a fence is BARRIER
        # (0), level > 0; operations (4, 5, 6: put, get, atomic) and syncs (10, bytes = the type) name a
        # window rank, here the world rank
        rma = int(kv.get('rma', -1)) if kind == 'RMA' else -1
        if rma == 3 and 0 < int(kv.get('req', 0)) < 1 << 32:
            per.setdefault(rank, []).append(['RMA_COLLECTIVE_END', tm, 'Operation: BARRIER, Window: <0>'])
            continue
        if rma in (4, 5, 6):
            per.setdefault(rank, []).append(['RMA_PUT', tm, 'Window: <0>, Remote: %s' % kv['peer']])
            continue
        if rma == 10 and kv.get('bytes') in ('1', '2'):
            per.setdefault(rank, []).append(['RMA_SYNC', tm, 'Window: <0>, Remote: %s, Sync Type: %s' % (
                kv['peer'], 'NOTIFY_IN' if kv['bytes'] == '1' else 'NOTIFY_OUT')])
            continue
        if kind not in names:
            continue
        cm = re.search(r' comm=(.*?) (?:tag|root|op|bytes|sent)=', ' ' + rest)
        comm = '"%s"' % (cm.group(1) if cm else 'other')
        cname = re.search(r'comm=(.*?) tag=', rest)
        if kind in ('ENTER', 'LEAVE'):
            text = 'Region: "%s"' % rest.split('region=', 1)[1]
        elif kind == 'NBC_REQUEST':
            text = 'Request: %s' % kv['req']
        elif kind in ('COLL_END', 'NBC_COMPLETE'):
            root = int(kv['root'])
            text = 'Operation: %s, Communicator: %s, Root: %s, Received: %s, Request: %s' % (
                kv['op'].upper(), comm, 'NONE' if root < 0 else root, kv.get('recv', 1), kv.get('req', 0))
        elif kind in ('ISEND_COMPLETE', 'IRECV_REQUEST'):
            text = 'Request: %s' % kv.get('req', 0)
        else:   # the peer's world rank as its location, the communicator by name, as p2p_key reads them
            peer = 'Receiver' if 'SEND' in kind else 'Sender'
            c = cname.group(1) if cname else 'other'
            text = '%s: %s ("thread" <%s>), Communicator: "%s" <%s>, Tag: %s, Request: %s' % (
                peer, kv.get('peer', 0), kv.get('peer', 0), c, c, kv.get('tag', 0), kv.get('req', 0))
        per.setdefault(rank, []).append([names[kind], tm, text])
    return per, nbrs


def widest_pair_ns(out):
    """the sum of the two widest per-run clock intervals of OUT/report.json's
    domains (as waits_bounds.c takes them): what a difference of two clocks
    may be off by at most"""
    widths = []
    for d in json.load(open(out + '/report.json')).get('domains', []):
        segs = d.get('segments') or []
        lo = [s['lo_ns'] - s['offset_ns'] for s in segs if s.get('lo_ns') is not None]
        hi = [s['hi_ns'] - s['offset_ns'] for s in segs if s.get('hi_ns') is not None]
        if len(lo) < len(segs) or len(hi) < len(segs) or not segs:
            return float('inf')
        outside = (d.get('outside_rounds') or {}).get('bound_ns') or 0.0
        widths.append(max(hi) - min(lo) + 2 * outside)
    widths.sort(reverse=True)
    return sum(widths[:2])


def main():
    otf2_print, synctrace, out, rawdir, injected, tol = sys.argv[1:7]
    pattern, value = injected.split('=')
    tol = float(tol)
    anchor = out + '/traces.otf2'
    merged, (nbrs, graphs) = records(events(otf2_print, anchor, 1)), topologies(otf2_print, anchor)
    ref_g, ref_t = totals(merged, 'g', nbrs), totals(merged, 't', nbrs)
    raw, raw_nbrs = raw_events(synctrace, rawdir)
    for name, ins in sorted(graphs.items()):
        same = ins in raw_nbrs.values()
        print('%s - neighbours.txt: communicator %s\'s in-neighbours as the raw trace has them' % (
            'ok' if same else 'not ok', name))
    ref_raw = totals(records(raw), 'g', raw_nbrs)
    tool = {w['pattern']: w for w in json.load(open(out + '/waits.json'))['totals']}
    for p, w in sorted(tool.items()):
        n = w['count_possible'] + 1
        ok = abs(w['seconds'] - ref_g.get(p, 0.0)) <= 1e-9 * n
        print('%s - %s: the tool\'s total %.9f s = the reference\'s %.9f s' % (
            'ok' if ok else 'not ok', p, w['seconds'], ref_g.get(p, 0.0)))
        t = ref_t.get(p, 0.0)
        # true times are whole ns: each end of a true wait is off by < 1 ns
        ok = w['lo'] - 2e-9 * n <= t <= w['hi'] + 2e-9 * n and abs((w.get('true_seconds') or 0) - t) <= 1e-9 * n
        print('%s - %s: true total %.6f s within [%.6f, %.6f]' % ('ok' if ok else 'not ok', p, t, w['lo'], w['hi']))
    if value == 'none':   # a call that does not block (MPI_Win_test): no wait at all, on any clock
        w = tool.get(pattern, {'count_possible': 0})
        print('%s - %s: none found (%d instances)' % ('ok' if w['count_possible'] == 0 else 'not ok', pattern,
                                                    w['count_possible']))
        raw = ref_raw.get(pattern, 0.0)
        print('%s - %s: none on the raw clocks either (%.6f s)' % ('ok' if raw == 0 else 'not ok', pattern, raw))
        return
    value = float(value)
    w = tool[pattern]
    # Under load the program's ranks also wait for the scheduler: the true
    # total (true times, known) then differs from the sleeps; that part is
    # the machine's, not the tool's, and is allowed for (and printed).
    truth = ref_t.get(pattern, 0.0)
    slack = max(0.0, abs(truth - value) - tol)
    # A wait must be sure (not "possibly none") unless the clocks are known
    # less well than one instance lasts: a loaded machine's sync rounds can
    # leave a clock that uncertain, and the bounds then honestly include 0.
    each = w['seconds'] / max(1, w['count'])
    widest = widest_pair_ns(out) * 1e-9
    unsure_allowed = widest >= each
    ok = w['lo'] - tol - slack <= value <= w['hi'] + tol + slack and (not w['possibly_none'] or unsure_allowed)
    print('%s - %s: injected %.6f s within %.6f s (+%.6f s the true total strayed) of [%.6f, %.6f] (merged %.6f)%s' % (
        'ok' if ok else 'not ok', pattern, value, tol, slack, w['lo'], w['hi'], w['seconds'],
        ', possibly none: two clocks known within %.6f s, one instance %.6f s' % (widest, each)
        if w['possibly_none'] else ''))
    raw = ref_raw.get(pattern, 0.0)
    ok = abs(raw - truth) > tol
    print('%s - %s: on the raw clocks %.6f s, off the true total %.6f s by more than %.6f s' % (
        'ok' if ok else 'not ok', pattern, raw, truth, tol))


if __name__ == '__main__':
    main()
