#!/usr/bin/env python3
"""scorep_like.py DIR [--processes P] [--threads T] [--iterations N] [--seed S]
[--cut] [--intercomm] [--rma] [--pscw] [--zoo]: an OTF2 archive in Score-P's layout, written with OTF2's own writer
(python3-otf2), for the cases the reference traces lack: many processes,
threads (OpenMP fork/join, thread teams), an accelerator stream and a metric
location per process, parameters and program begin/end, and with --cut a
run that ended early (the last quarter of the processes stop in the last iteration, without
MPI_Finalize, and their locations declare what they hold). Every process's clock is skewed (offset and drift from the
seed), with no ClockOffsets: the messages alone place the clocks. Writes
DIR/traces.otf2 and DIR/skew.json in the reference traces' format (each
rank's exact map from timestamps to true time: interp_to_true).

The program each rank runs, N times: a compute region on the master thread
that forks T - 1 threads (each an OpenMP parallel region), a kernel on its
accelerator stream, a ring exchange (Isend to the right, Irecv from the
left, Waitall), and an Allreduce on MPI_COMM_WORLD; true latencies >= 2 us.
With --intercomm the world is also split into two halves joined by an
intercommunicator (Score-P's INTER_COMM definition, its two groups and no
common communicator), over which rank i of the lower half sends to rank i
of the upper (MPI_Send, MPI_Recv: peers are ranks of the remote group)
before the Allreduce. With --rma each iteration also has an epoch of MPI
one-sided communication on a window of MPI_COMM_WORLD, as Score-P records
it: MPI_Win_fence (RmaCollectiveBegin, RmaCollectiveEnd BARRIER), an
MPI_Put to the right neighbour (RmaPut), and a closing fence inside which
the put's completions are written (RmaOpCompleteNonBlocking,
RmaOpCompleteRemote); nobody leaves a fence before the last member entered
it + latency. With --pscw each iteration instead has a PSCW epoch on the
ring: each rank posts to its left neighbour and starts to its right one
(MPI_Win_post, MPI_Win_start: RmaGroupSync PROCESS with the one-rank
group), puts to the right (MPI_Put: RmaPut), completes (MPI_Win_complete:
the put's completions, RmaGroupSync MEMORY|PROCESS with the access group,
at its exit) and waits (MPI_Win_wait: RmaGroupSync MEMORY|PROCESS with the
exposure group), the wait returning >= 2 us after its origin entered
MPI_Win_complete; in the second iteration rank 0 tests instead of
waiting: an MPI_Win_test that fails (RmaGroupSync level NONE), then one
that succeeds; in the first, rank 1's buffer is flushed inside its
MPI_Win_complete (a BufferFlush before the completions). With --zoo each iteration's compute region on every master
thread also holds one record of every event kind python3-otf2 writes that
the merge does not model (I/O, calling contexts, samples, tasks, locks,
measurement on/off, program begin/end, buffer flushes, thread
create/wait/begin/end, parameters, the RMA records of no ordering, ...),
each with an attribute of every OTF2 type: a copy must keep them all."""
import json
import os
import random
import sys

import inspect

import otf2
import otf2.events
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from merged_check import fix_intercomm_fields  # noqa: E402
from otf2.enums import CollectiveOp, GroupType, LocationType, Paradigm, RegionRole, RmaSyncLevel

RES = 1000000000
BASE = 5_000_000_000


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


# What the merge models (or this generator writes as Score-P does): not in the zoo.
ZOO_SKIP = {"Enter", "Leave", "MpiSend", "MpiRecv", "MpiIsend", "MpiIrecv", "MpiIsendComplete", "MpiIrecvRequest",
            "MpiRequestCancelled", "MpiCollectiveBegin", "MpiCollectiveEnd", "NonBlockingCollectiveRequest",
            "NonBlockingCollectiveComplete", "CommCreate", "CommDestroy", "RmaWinCreate", "RmaWinDestroy",
            "RmaCollectiveBegin", "RmaCollectiveEnd", "RmaPut", "RmaGet", "RmaAtomic", "RmaOpCompleteRemote",
            "RmaOpCompleteNonBlocking", "RmaRequestLock", "RmaReleaseLock", "RmaSync", "RmaGroupSync",
            "ThreadFork", "ThreadJoin", "ThreadTeamBegin", "ThreadTeamEnd", "Metric"}
ZOO_ENUMS = {"LockType": "EXCLUSIVE", "IoOperationMode": "WRITE", "IoOperationFlag": "NON_BLOCKING",
             "IoAccessMode": "READ_WRITE", "IoCreationFlag": "CREATE", "IoStatusFlag": "APPEND",
             "IoSeekOption": "FROM_START", "MeasurementMode": "OFF", "Paradigm": "PTHREAD"}


def zoo_kinds():
    return [c for n, c in sorted(inspect.getmembers(otf2.events, inspect.isclass))
            if issubclass(c, otf2.events._Event) and c is not otf2.events._Event and n not in ZOO_SKIP]


def zoo_defs(d, node, world, masters, region):
    """the definitions the zoo's records name, and an attribute of every type"""
    z = {"RegionRef": region("zoo region"), "RmaWinRef": d.rma_win("zoo window", world)}
    d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.PTHREAD, members=masters)
    threads = d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.PTHREAD, members=masters)
    z["CommRef"] = d.comm("pthread contingent", group=threads)
    z["IoParadigmRef"] = d.io_paradigm("POSIX", "POSIX I/O", otf2.enums.IoParadigmClass.SERIAL,
                                       otf2.enums.IoParadigmFlag.NONE)
    z["IoFileRef"] = d.io_regular_file("/scratch/zoo.dat", scope=node)
    z["IoHandleRef"] = d.io_handle("zoo.dat", file=z["IoFileRef"], io_paradigm=z["IoParadigmRef"])
    scl = d.source_code_location("zoo.c", line_number=42)
    z["CallingContextRef"] = d.calling_context(z["RegionRef"], source_code_location=scl, parent=None)
    z["InterruptGeneratorRef"] = d.interrupt_generator("zoo sampling", period=1000000)
    z["string_param"] = d.parameter("zoo label", parameter_type=otf2.ParameterType.STRING)
    z["ParameterRef"] = d.parameter("zoo count", parameter_type=otf2.ParameterType.UINT64)
    z["int_param"] = d.parameter("zoo offset", parameter_type=otf2.ParameterType.INT64)
    member = d.metric_member("zoo metric", unit="1")
    T = otf2.Type
    values = {T.UINT8: 200, T.UINT16: 60000, T.UINT32: 4000000000, T.UINT64: (1 << 63) + 5, T.INT8: -100,
              T.INT16: -30000, T.INT32: -2000000000, T.INT64: -(1 << 62), T.FLOAT: 1.5, T.DOUBLE: -2.25e-300,
              T.STRING: "zoo string", T.REGION: z["RegionRef"], T.GROUP: threads, T.COMM: z["CommRef"],
              T.METRIC: d.metric_class([member]), T.PARAMETER: z["ParameterRef"], T.RMA_WIN: z["RmaWinRef"],
              T.SOURCE_CODE_LOCATION: scl, T.CALLING_CONTEXT: z["CallingContextRef"],
              T.INTERRUPT_GENERATOR: z["InterruptGeneratorRef"], T.IO_FILE: z["IoFileRef"],
              T.IO_HANDLE: z["IoHandleRef"], T.LOCATION: masters[0], T.LOCATION_GROUP: masters[0].group}
    # the definitions no record names: properties, a Cartesian topology of
    # the world (MPI_Cart_create), callpaths, recorders, domains
    dims = [d.cart_dimension("zoo x", size=len(masters), cart_periodicity=otf2.enums.CartPeriodicity.TRUE)]
    cart = d.cart_topology("zoo cart", communicator=world, dimensions=tuple(dims))
    for r in range(len(masters)):
        d.cart_coordinate(topology=cart, rank=r, coordinates=(r,))
    callpath = d.callpath(parent=None, region=z["RegionRef"])
    d.callpath_parameter(callpath, z["ParameterRef"], value=7)
    d.location_property(masters[0], "zoo location property", value="a value")
    d.location_group_property(masters[0].group, "zoo group property", value=3)
    d.system_tree_node_property(node, "zoo node property", value=1.25)
    d.system_tree_node_domain(node, otf2.enums.SystemTreeDomain.SHARED_MEMORY)
    d.calling_context_property(z["CallingContextRef"], "zoo context property", value="x")
    d.io_file_property(z["IoFileRef"], "zoo file property", value="y")
    d.io_pre_created_handle_state(z["IoHandleRef"], otf2.enums.IoAccessMode.READ_ONLY)
    z["attrs"] = {d.attribute("zoo %s" % str(t).split(".")[-1].lower(), type=t): v for t, v in values.items()}
    z["attrs"][d.attribute("zoo attribute", type=T.ATTRIBUTE)] = next(iter(z["attrs"]))
    return z


def write_zoo(w, ts, z):
    """one record of every kind zoo_kinds() gives, at ts, ts + 1, ..."""
    for k, cls in enumerate(zoo_kinds()):
        args = []
        for name, ftype, _ in cls._fields[1:-1]:
            if ftype == "ParameterRef" and cls.__name__ in ("ParameterString", "ParameterInt"):
                args.append(z["string_param" if cls.__name__ == "ParameterString" else "int_param"])
            elif ftype in z:
                args.append(z[ftype])
            elif ftype == "StringRef":
                args.append("zoo")
            elif ftype == "TimeStamp":     # BufferFlush's stop
                args.append(ts + k + 1)
            elif ftype == "array":         # ProgramBegin's arguments
                args.append(["--zoo", str(k)])
            elif ftype in ZOO_ENUMS:
                args.append(getattr(getattr(otf2.enums, ftype), ZOO_ENUMS[ftype]))
            elif ftype == "ctypes.c_int64":
                args.append(-5 - k)
            elif ftype == "ctypes.c_uint64":
                args.append((1 << 40) + k)
            elif ftype == "ctypes.c_uint32":
                args.append(3 + k)
            else:
                raise SystemExit("scorep_like.py --zoo: no value for %s.%s (%s)" % (cls.__name__, name, ftype))
        w.write(cls(ts + k, *args, attributes=z["attrs"] if k % 2 == 0 else {}))


def main():
    out = sys.argv[1]
    P, T, N, seed = arg("--processes", 64), arg("--threads", 3), arg("--iterations", 20), arg("--seed", 1)
    cut = "--cut" in sys.argv
    inter = "--intercomm" in sys.argv
    rma = "--rma" in sys.argv
    pscw = "--pscw" in sys.argv
    zoo = "--zoo" in sys.argv
    H = P // 2
    rng = random.Random(seed)
    clocks = [(rng.uniform(-500e3, 500e3) if r else 0.0, rng.uniform(-40, 40) if r else 0.0) for r in range(P)]

    def stamp(r, t):   # true ns -> the rank's ticks
        off, ppm = clocks[r]
        return int(round(BASE + off + (t - BASE) * (1 + ppm * 1e-6)))

    # the true schedule: per rank a list of (location kind, true time, event maker)
    ev = {(r, k): [] for r in range(P) for k in ["master", "gpu", "metric"] + ["t%d" % i for i in range(1, T)]}
    t = [BASE + 1000 * r for r in range(P)]
    # MPI_Init, as Score-P records it (its Enter some time before the rest)
    for r in range(P):
        ev[(r, "master")] += [(t[r] - 900, "enter", "MPI_Init"), (t[r] - 100, "leave", "MPI_Init")]
    world_ends = []
    for it in range(N):
        for r in range(P):
            t0 = t[r]
            ev[(r, "master")].append((t0, "enter", "compute"))
            ev[(r, "master")].append((t0 + 100, "fork", T))
            for i in range(1, T):
                ev[(r, "t%d" % i)].append((t0 + 200 + i, "enter", "!$omp parallel"))
                ev[(r, "t%d" % i)].append((t0 + 20000 + rng.randint(0, 5000) + i, "leave", "!$omp parallel"))
            ev[(r, "master")].append((t0 + 30000, "join", None))
            ev[(r, "master")].append((t0 + 30100, "param", it))
            if zoo:   # some 50 records, 1 ns apart, before compute's leave
                ev[(r, "master")].append((t0 + 30110, "zoo", None))
            ev[(r, "master")].append((t0 + 30200, "leave", "compute"))
            ev[(r, "gpu")].append((t0 + 500, "enter", "kernel"))
            ev[(r, "gpu")].append((t0 + 25000, "leave", "kernel"))
            ev[(r, "metric")].append((t0 + 30150, "metric", it))
            t[r] = t0 + 31000 + rng.randint(0, 20000)
        # the ring: rank r sends to r+1 at send[r], which receives it at >= send + latency
        send = [t[r] + 1000 for r in range(P)]
        for r in range(P):
            left = (r - 1) % P
            arrive = send[left] + 2000 + rng.randint(0, 3000)
            ev[(r, "master")] += [(t[r], "enter", "MPI_Isend"), (t[r] + 1000, "isend", ((r + 1) % P, it)),
                                  (t[r] + 1500, "leave", "MPI_Isend"),
                                  (t[r] + 1600, "enter", "MPI_Irecv"), (t[r] + 1700, "irecv_req", it),
                                  (t[r] + 1800, "leave", "MPI_Irecv")]
            done = max(t[r] + 2000, arrive) + 200
            ev[(r, "master")] += [(t[r] + 1900, "enter", "MPI_Waitall"), (done - 100, "isend_done", it),
                                  (done, "irecv", (left, it)), (done + 100, "leave", "MPI_Waitall")]
            t[r] = done + 200
        # the intercommunicator: rank i of the lower half to rank i of the upper
        for i in range(H if inter else 0):
            s_, q = i, H + i
            arrive = t[s_] + 500 + 2000 + rng.randint(0, 3000)
            ev[(s_, "master")] += [(t[s_], "enter", "MPI_Send"), (t[s_] + 500, "isend_inter", (i, it)),
                                   (t[s_] + 1000, "leave", "MPI_Send")]
            done = max(t[q] + 500, arrive)
            ev[(q, "master")] += [(t[q], "enter", "MPI_Recv"), (done, "irecv_inter", (i, it)),
                                  (done + 100, "leave", "MPI_Recv")]
            t[s_] += 1100
            t[q] = done + 200
        # one-sided: fence, a put to the right, fence
        def fence(done_ids):
            last = max(t)
            for r in range(P):
                ev[(r, "master")] += [(t[r], "enter", "MPI_Win_fence"), (t[r] + 50, "rma_begin", None)]
                leave = last + 3000 + rng.randint(0, 1000)
                ev[(r, "master")] += [(leave - 20, "rma_done", done_ids[r])] if done_ids[r] is not None else []
                ev[(r, "master")] += [(leave, "rma_end", None), (leave + 50, "leave", "MPI_Win_fence")]
                t[r] = leave + 100
        if rma:
            fence([None] * P)
            for r in range(P):
                ev[(r, "master")] += [(t[r], "enter", "MPI_Put"), (t[r] + 300, "rma_put", ((r + 1) % P, it)),
                                      (t[r] + 600, "leave", "MPI_Put")]
                t[r] += 700 + rng.randint(0, 2000)
            fence([it for _ in range(P)])
        # PSCW on the ring: post to the left, start to the right, put,
        # complete; the wait returns once the left one entered its complete
        if pscw:
            entered = [0] * P
            for r in range(P):
                left, right = (r - 1) % P, (r + 1) % P
                a = t[r]
                ev[(r, "master")] += [(a, "enter", "MPI_Win_post"), (a + 200, "group_sync", ("post", left)),
                                      (a + 300, "leave", "MPI_Win_post"),
                                      (a + 400, "enter", "MPI_Win_start"), (a + 600, "group_sync", ("start", right)),
                                      (a + 700, "leave", "MPI_Win_start"),
                                      (a + 800, "enter", "MPI_Put"), (a + 1100, "rma_put", (right, it)),
                                      (a + 1400, "leave", "MPI_Put")]
                entered[r] = a + 1500 + rng.randint(0, 2000)
                leave = entered[r] + 1000 + rng.randint(0, 1000)
                ev[(r, "master")] += [(entered[r], "enter", "MPI_Win_complete"), (leave - 30, "rma_done", it),
                                      (leave - 10, "group_sync", ("complete", right)),
                                      (leave, "leave", "MPI_Win_complete")]
                if it == 0 and r == 1:   # Score-P's buffer flushed inside a complete: it still orders
                    ev[(r, "master")].append((leave - 50, "flush", None))
                t[r] = leave + 100
            for r in range(P):
                left = (r - 1) % P
                done = max(t[r] + 1000, entered[left] + 2000 + rng.randint(0, 3000))
                if it == 1 and r == 0:   # a test that fails, then one that succeeds
                    ev[(r, "master")] += [(t[r], "enter", "MPI_Win_test"), (t[r] + 100, "group_sync", ("none", left)),
                                          (t[r] + 200, "leave", "MPI_Win_test"),
                                          (done - 300, "enter", "MPI_Win_test")]
                else:
                    ev[(r, "master")].append((t[r], "enter", "MPI_Win_wait"))
                ev[(r, "master")] += [(done - 10, "group_sync", ("wait", left)),
                                      (done, "leave", "MPI_Win_test" if it == 1 and r == 0 else "MPI_Win_wait")]
                t[r] = done + 100
        # the Allreduce: nobody leaves before the last one entered + latency
        last = max(t)
        for r in range(P):
            ev[(r, "master")] += [(t[r], "enter", "MPI_Allreduce"), (t[r] + 50, "coll_begin", None)]
            leave = last + 3000 + rng.randint(0, 1000)
            ev[(r, "master")] += [(leave, "coll_end", None), (leave + 50, "leave", "MPI_Allreduce")]
            t[r] = leave + 100
        world_ends.append(last)
    # MPI_Finalize: its own barrier-like end, as in any run that finished
    last = max(t)
    for r in range(P):
        ev[(r, "master")] += [(t[r], "enter", "MPI_Finalize"), (last + 3000 + r, "leave", "MPI_Finalize")]
    if cut:   # the last quarter of the ranks died during the last iteration: their tails are gone
        stop = world_ends[-1] - 1
        for (r, k), lst in ev.items():
            if r >= P - P // 4:
                ev[(r, k)] = [e for e in lst if e[0] < stop]

    with otf2.writer.open(out, timer_resolution=RES) as trace:
        d = trace.definitions
        machine = d.system_tree_node("machine")
        nodes = [d.system_tree_node("node%d" % n, parent=machine) for n in range((P + 15) // 16)]
        groups = [d.location_group("MPI Rank %d" % r, system_tree_parent=nodes[r // 16]) for r in range(P)]
        regions = {}

        def region(name, paradigm=Paradigm.USER, role=RegionRole.FUNCTION):
            if name not in regions:
                regions[name] = d.region(name, paradigm=paradigm, region_role=role)
            return regions[name]

        # the masters first, so that the MPI group's members are ranks 0..P-1
        writers = {(r, "master"): trace.event_writer("Master thread", group=groups[r]) for r in range(P)}
        for r in range(P):
            for i in range(1, T):
                writers[(r, "t%d" % i)] = trace.event_writer("OMP thread %d" % i, group=groups[r])
            writers[(r, "gpu")] = trace.event_writer("CUDA[0:7]", group=groups[r], type=LocationType.ACCELERATOR_STREAM)
            writers[(r, "metric")] = trace.event_writer("metrics", group=groups[r], type=LocationType.METRIC)
        masters = [writers[(r, "master")]._location for r in range(P)]
        mpi = d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=masters)
        world_group = d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=masters)
        del mpi
        world = d.comm("MPI_COMM_WORLD", group=world_group)
        if inter:
            fix_intercomm_fields()   # python3-otf2 3.0 cannot define an InterComm otherwise
            halves = [d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=m)
                      for m in (masters[:H], masters[H:2 * H])]
            intercomm = d.inter_comm("halves", groupA=halves[0], groupB=halves[1])
        if rma or pscw:
            win = d.rma_win("MPI_Win_create window", world)
        # Score-P's groups of MPI_Group: COMM_GROUP, members world ranks
        one_rank = [d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[m])
                    for m in masters] if pscw else []
        z = zoo_defs(d, machine, world, masters, region) if zoo else None
        param = d.parameter("iteration", parameter_type=otf2.ParameterType.INT64)
        metric_member = d.metric_member("flops", unit="1")
        metric_class = d.metric_class([metric_member])
        for (r, k), lst in sorted(ev.items(), key=lambda x: (x[0][0], x[0][1] != "master")):
            w = writers[(r, k)]
            for tt, kind, x in sorted(lst, key=lambda e: e[0]):
                ts = stamp(r, tt)
                if kind == "enter":
                    w.enter(ts, region(x, Paradigm.MPI if x.startswith("MPI_") else
                                       Paradigm.OPENMP if x.startswith("!$omp") else
                                       Paradigm.CUDA if x == "kernel" else Paradigm.USER))
                elif kind == "leave":
                    w.leave(ts, region(x))
                elif kind == "fork":
                    w.thread_fork(ts, Paradigm.OPENMP, x)
                elif kind == "join":
                    w.thread_join(ts, Paradigm.OPENMP)
                elif kind == "param":
                    w.parameter_int(ts, param, x)
                elif kind == "zoo":
                    write_zoo(w, ts, z)
                elif kind == "metric":
                    w.metric(ts, metric_class, [float(x)])
                elif kind == "isend":
                    w.mpi_isend(ts, x[0], world, x[1], 64, 2 * x[1])
                elif kind == "isend_done":
                    w.mpi_isend_complete(ts, 2 * x)
                elif kind == "irecv_req":
                    w.mpi_irecv_request(ts, 2 * x + 1)
                elif kind == "irecv":
                    w.mpi_irecv(ts, x[0], world, x[1], 64, 2 * x[1] + 1)
                elif kind == "isend_inter":   # to rank x[0] of the remote group
                    w.mpi_send(ts, x[0], intercomm, 100 + x[1], 32)
                elif kind == "irecv_inter":
                    w.mpi_recv(ts, x[0], intercomm, 100 + x[1], 32)
                elif kind == "rma_begin":
                    w.rma_collective_begin(ts)
                elif kind == "rma_end":
                    w.rma_collective_end(ts, CollectiveOp.BARRIER, RmaSyncLevel.PROCESS | RmaSyncLevel.MEMORY, win,
                                         0xFFFFFFFF, 0, 0)
                elif kind == "rma_put":
                    w.rma_put(ts, win, x[0], 64, x[1])
                elif kind == "flush":
                    w.buffer_flush(ts, ts + 5)
                elif kind == "rma_done":
                    w.rma_op_complete_non_blocking(ts, win, x)
                    w.rma_op_complete_remote(ts, win, x)
                elif kind == "group_sync":   # at the call's exit, as Score-P writes it
                    level = {"post": RmaSyncLevel.PROCESS, "start": RmaSyncLevel.PROCESS,
                             "none": RmaSyncLevel.NONE}.get(x[0], RmaSyncLevel.MEMORY | RmaSyncLevel.PROCESS)
                    w.rma_group_sync(ts, level, win, one_rank[x[1]])
                elif kind == "coll_begin":
                    w.mpi_collective_begin(ts)
                elif kind == "coll_end":
                    w.mpi_collective_end(ts, CollectiveOp.ALLREDUCE, world, 0xFFFFFFFF, 8, 8 * P)
    ranks = []
    for r in range(P):
        off, ppm = clocks[r]
        b = 1 / (1 + ppm * 1e-6)
        # true = BASE + (ts - BASE - off) * b, as a + b * (ts - global_offset); the global
        # offset the writer chose is read back below
        ranks.append({"rank": r, "offset_ns": off, "drift_ppm": ppm, "locations": [], "_b": b})
    with otf2.reader.open(os.path.join(out, "traces.otf2")) as trace:
        go = trace.definitions.clock_properties.global_offset
        for loc in trace.definitions.locations:
            r = int(loc.group.name.split()[-1])
            ranks[r]["locations"].append({"ref": loc._ref, "name": str(loc.name), "group": str(loc.group.name)})
    for x in ranks:
        b = x.pop("_b")
        x["interp_to_true"] = {"a_ns": BASE + (go - BASE - x["offset_ns"]) * b, "b": b, "valid": True}
    json.dump({"name": "scorep_like", "clock_properties": {"timer_resolution": RES, "global_offset": go},
               "ranks": ranks}, open(os.path.join(out, "skew.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
