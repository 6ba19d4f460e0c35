#!/usr/bin/env python3
"""otf2_framing.py DIR [--events N]: an OTF2 archive, DIR/traces.otf2,
written with OTF2's own writer to exercise every part of the event
framing the copy's in-place rewrite reads (tools/foreign/evtpatch.c):

- the smallest event chunks OTF2 allows (256 KiB), so that each location
  spans many chunks, each starting with its own timestamp;
- records longer than 254 bytes (their length in 8 more bytes): a
  ProgramBegin with 120 arguments, events with attribute lists of 80
  attributes;
- the ten records of one compressed integer (Enter, Leave,
  MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled,
  OmpFork, OmpTaskCreate, OmpTaskSwitch, OmpTaskComplete) with 0, small,
  large and OTF2's undefined values (a lone 0xff byte);
- runs of events sharing one timestamp (OTF2 writes it once), time 0 at
  the start, an empty location and one of a single event;
- BufferFlush records, whose stop time is a timestamp inside the record.

Three locations of two processes; N events (default 60000) on each of the
first two. Deterministic."""
import sys

import otf2
from otf2.enums import Paradigm, RegionRole, Type

UNDEF64 = (1 << 64) - 1
UNDEF32 = (1 << 32) - 1


def main():
    out = sys.argv[1]
    n = int(sys.argv[sys.argv.index("--events") + 1]) if "--events" in sys.argv else 60000
    with otf2.writer.open(out, timer_resolution=10**9, chunk_size_events=256 * 1024) as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        groups = [d.location_group("Process %d" % p, system_tree_parent=node) for p in range(2)]
        regions = [d.region("region %d" % i, paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
                   for i in range(300)]
        attrs = [d.attribute("attribute %d" % i, type=Type.UINT64) for i in range(80)]
        args = ["--argument-%d" % i for i in range(120)]
        param = d.parameter("label", parameter_type=otf2.ParameterType.STRING)
        name, label = "framing", "a label"
        writers = [trace.event_writer("thread 0", group=groups[0]),
                   trace.event_writer("thread 1", group=groups[0]),
                   trace.event_writer("main", group=groups[1])]
        trace.event_writer("empty", group=groups[1])   # no events at all
        for k, w in enumerate(writers):
            count = 1 if k == 2 else n
            t = 0
            w.program_begin(t, name, args)
            written = 1
            i = 0
            while written < count:
                # a step of 0 now and then: events sharing a timestamp
                t += 0 if i % 7 in (1, 2) else 1 + (i * 37 + k) % 1000
                kind = i % 13
                v = [0, 5, 1 << 20, 1 << 40, UNDEF64][i % 5]
                if kind == 0:
                    w.enter(t, regions[i % 300])
                elif kind == 1:
                    w.leave(t, regions[(i - 1) % 300])
                elif kind == 2:
                    w.mpi_isend_complete(t, v)
                elif kind == 3:
                    w.mpi_irecv_request(t, v)
                elif kind == 4:
                    w.mpi_request_test(t, v)
                elif kind == 5:
                    w.mpi_request_cancelled(t, v)
                elif kind == 6:
                    w.omp_fork(t, [0, 4, 300, 1 << 20, UNDEF32][i % 5])
                elif kind == 7:
                    w.omp_task_create(t, v)
                elif kind == 8:
                    w.omp_task_switch(t, v)
                elif kind == 9:
                    w.omp_task_complete(t, v)
                elif kind == 10:   # a long attribute list now and then, else one attribute
                    many = i % 120 == 10
                    w.enter(t, regions[i % 300],
                            attributes={a: j * 1000003 for j, a in enumerate(attrs if many else attrs[:1])})
                elif kind == 11:
                    w.parameter_string(t, param, label)
                else:   # its stop time is a field of its own, which the copy maps too
                    w.buffer_flush(t, t + 1 + i % 500)
                written += 1
                i += 1
            if count > 1:
                w.program_end(t, 0)


if __name__ == "__main__":
    main()
