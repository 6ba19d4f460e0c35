#!/usr/bin/env python3
"""otf2copy_check.py IN.print OUT.print SHIFT [--dropped] [--new-clock]: the copy of an
OTF2 archive against its input, record for record, from `otf2-print -A
-M -C` of both. Every line of the input is in the copy, in the same place,
and nothing else, except: the trace identifier (new for every archive);
the timestamps, SHIFT ns later (events, ClockOffsets, the clock's global
offset, a BufferFlush's stop); with --dropped, the ClockOffset lines, which the copy leaves out,
and then the events' times, which otf2-print corrects with the input's
ClockOffsets only, so that each location's events are compared in order
without their times (a flush's stop no earlier than its start;
tests/test-otf2copy.sh then compares the times with
those of a copy without ClockOffsets); with --new-clock, the ClockProperties'
global offset and length (a merged copy's own). Prints "ok - ..." or "not ok - ..."
lines."""
import re
import sys

EVENT = re.compile(r'^(\S+)\s+(\d+)\s+(\d+)(\s.*)?$')


def sections(path):
    """header lines, global definitions, local definitions, events by location"""
    parts = {'head': [], 'global': [], 'local': [], 'events': {}}
    where = 'head'
    last = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('=== Global Definitions'):
                where = 'global'
            elif line.startswith('=== Per Location Definitions'):
                where = 'local'
            elif line.startswith('=== Events'):
                where = 'events'
            elif where == 'events':
                m = EVENT.match(line)
                if m:
                    last = [m.group(1), int(m.group(3)), m.group(4) or '']
                    parts['events'].setdefault(m.group(2), []).append(last)
                elif line.startswith(' ') and line.strip() and last:
                    last[2] += '\n' + line.strip()   # an event's attributes, on lines of their own
                elif line.strip() and not line.startswith(('Event ', '---')):
                    parts['events'].setdefault('?', []).append([line, 0, ''])
            else:
                parts[where].append(line)
    return parts


STOP = re.compile(r'Stop Time: (\d+)')   # a BufferFlush's stop: a timestamp inside the record


def shift_numbers(line, key, shift):
    return re.sub(r'(%s: )(\d+)' % key, lambda m: m.group(1) + str(int(m.group(2)) + shift), line)


def main(argv):
    if len(argv) < 4:
        print('usage: otf2copy_check.py IN.print OUT.print SHIFT [--dropped]', file=sys.stderr)
        return 2
    a, b, shift, dropped = sections(argv[1]), sections(argv[2]), int(argv[3]), '--dropped' in argv
    if '--new-clock' in argv:   # the clock's offset and length are the copy's own (a merge's)
        for part in (a, b):
            part['global'] = [re.sub(r'Global Offset: \d+, Length: \d+', 'Global Offset: *, Length: *', l)
                              if l.startswith('CLOCK_PROPERTIES') else l for l in part['global']]
    status = 0

    def check(ok, what):
        nonlocal status
        print(('ok - ' if ok else 'not ok - ') + what)
        status |= not ok

    head_a = [l for l in a['head'] if not l.startswith('Trace identifier')]
    head_b = [l for l in b['head'] if not l.startswith('Trace identifier')]
    check(head_a == head_b, 'the anchor file says the same (the trace identifier aside): %d lines' % len(head_a))
    want = [shift_numbers(l, 'Global Offset', shift) if l.startswith('CLOCK_PROPERTIES') else l for l in a['global']]
    diff = [(x, y) for x, y in zip(want, b['global']) if x != y]
    check(len(want) == len(b['global']) and not diff,
          'every global definition copied in order (%d lines; %d differ%s)'
          % (len(want), len(diff) + abs(len(want) - len(b['global'])), (': %r' % (diff[0],)) if diff else ''))
    offsets = [l for l in a['local'] if l.startswith('CLOCK_OFFSET')]
    want = [l for l in a['local'] if not (dropped and l.startswith('CLOCK_OFFSET'))]
    want = [shift_numbers(l, 'Time', shift) if l.startswith('CLOCK_OFFSET') else l for l in want]
    diff = [(x, y) for x, y in zip(want, b['local']) if x != y]
    check(len(want) == len(b['local']) and not diff,
          'every local definition copied in order (%d lines, %d ClockOffsets %s; %d differ%s)'
          % (len(want), len(offsets), 'dropped' if dropped else 'kept', len(diff) + abs(len(want) - len(b['local'])),
             (': %r' % (diff[0],)) if diff else ''))
    n = sum(len(v) for v in a['events'].values())
    lost = added = moved = reordered = 0
    for loc in sorted(set(a['events']) | set(b['events'])):
        x, y = a['events'].get(loc, []), b['events'].get(loc, [])
        lost += max(0, len(x) - len(y))
        added += max(0, len(y) - len(x))
        for (ka, ta, ra), (kb, tb, rb) in zip(x, y):
            stop = STOP.search(rb)
            if stop and int(stop.group(1)) < tb:
                reordered += 1   # a flush that stops before it starts
            # the stop is a time: shifted as the timestamps, or (--dropped) not compared
            ra = STOP.sub('Stop Time: *', ra) if dropped else shift_numbers(ra, 'Stop Time', shift)
            rb = STOP.sub('Stop Time: *', rb) if dropped else rb
            if (ka, ra) != (kb, rb):
                reordered += 1
            elif not dropped and tb != ta + shift:
                moved += 1
    check(n > 0 and lost == 0 and added == 0 and reordered == 0,
          '%d events in %d locations: %d lost, %d added, %d reordered or changed' % (n, len(a['events']), lost, added,
                                                                                     reordered))
    if not dropped:
        check(moved == 0, 'every timestamp %d ns later (%d are not)' % (shift, moved))
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
