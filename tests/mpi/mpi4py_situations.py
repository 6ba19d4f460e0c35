#!/usr/bin/env python3
"""mpi4py_situations.py — what mpi4py's own test suite (3.1.4, the version
Debian 12 ships) exercises and the C conformance corpus does not, one
function per situation, for tests/test-clients.sh. Run on 4 ranks:

    mpirun -np 4 python3 -m mpi4py mpi4py_situations.py [--only|--skip NAME,...] [SCRATCH_DIR]

Every situation folds what this rank received into a CRC; rank 0 prints one
line per situation with every rank's CRC, so the output is the same on
every run, traced or not. The situations (and the test files that inspired
them): buffer collectives on COMM_SELF and on duplicates, each rank late in
turn (test_cco_buf, test_cco_nb_buf); reductions by Python functions, which
make MPI calls inside the collective (test_op); object collectives on an
intercommunicator with MPI.ROOT / MPI.PROC_NULL (test_cco_obj_inter);
buffered, ready and synchronous sends, persistent variants, probes,
Sendrecv_replace, cancelled receives and MPI_PROC_NULL peers
(test_p2p_buf); matched probes (test_p2p_buf_matched); zero-length
messages and collectives (test_msgzero); communicator management:
Dup_with_info, Idup, Create, Create_group, Split_type, names
(test_comm); one-sided atomics, request-based RMA, flushes, shared and
dynamic windows (test_rma, test_rma_nb, test_win); errors returned instead
of aborting (test_errhandler); an intercommunicator from
Open_port/Accept/Connect (test_dynproc); pickle-5 messages through matched
probes (test_util_pkl5); generalized requests (test_grequest); Testsome
and Waitsome (test_request); collective MPI-IO (test_io); MPI_Comm_spawn
of a child that talks to its parents (test_spawn: the child is traced into
SYNCTRACE_DIR/spawn-0 and merged with its parents). Not covered: MPI_Comm_join (sockets).
"""
import array
import os
import sys
import time
import zlib

from mpi4py import MPI

WORLD = MPI.COMM_WORLD
RANK = WORLD.Get_rank()
SIZE = WORLD.Get_size()
crc = 0


def fold(data):
    """Fold received data (bytes, arrays, numbers, objects) into the CRC."""
    global crc
    if isinstance(data, (bytes, bytearray, memoryview)):
        crc = zlib.crc32(bytes(data), crc)
    elif isinstance(data, array.array):
        crc = zlib.crc32(data.tobytes(), crc)
    else:
        crc = zlib.crc32(repr(data).encode(), crc)


def ints(n, seed=0):
    return array.array("i", [RANK * 1000 + seed * 37 + i for i in range(n)])


def zeros(n):
    return array.array("i", [0] * n)


def late(who, ms=10):
    if RANK == who:
        time.sleep(ms / 1000.0)


def self_collectives():
    """Every buffer collective on COMM_SELF and on a duplicate of it, each
    rank at its own time: each rank's SELF is its own communicator."""
    time.sleep(0.01 * RANK)
    for comm in (MPI.COMM_SELF, MPI.COMM_SELF.Dup()):
        s, r = ints(4, 1), zeros(4)
        comm.Barrier()
        comm.Bcast(s, root=0)
        comm.Allreduce(s, r, op=MPI.SUM)
        fold(r)
        comm.Reduce(s, r, op=MPI.MAX, root=0)
        fold(r)
        comm.Gather(s, r, root=0)
        fold(r)
        comm.Scatter(s, r, root=0)
        comm.Allgather(s, r)
        comm.Alltoall(s, r)
        fold(r)
        comm.Scan(s, r, op=MPI.SUM)
        comm.Exscan(s, r, op=MPI.SUM)
        comm.Reduce_scatter_block(s, r, op=MPI.SUM)
        comm.Reduce_scatter(s, r, [4], op=MPI.SUM)
        fold(r)
        req = comm.Ialltoall(s, r)
        req.Wait()
        comm.Iscan(s, r, op=MPI.SUM).Wait()
        comm.Iexscan(s, r, op=MPI.SUM).Wait()
        fold(r)
        comm.Isend(s, dest=0, tag=3)
        comm.Recv(r, source=0, tag=3)
        fold(r)
        if comm != MPI.COMM_SELF:
            comm.Free()


def world_collectives():
    """Collectives on a duplicate of the world with a derived datatype and
    Reduce_local; the non-blocking kinds, one rank late each time."""
    comm = WORLD.Dup()
    blocks = MPI.INT.Create_indexed_block(2, [0, 3])
    blocks.Commit()
    for k, name in enumerate(["Ibcast", "Igather", "Iscatter", "Iallgather", "Ialltoall",
                              "Ireduce", "Iallreduce", "Ireduce_scatter_block", "Iscan", "Iexscan"]):
        late(k % SIZE, 8)
        s, r = ints(4 * SIZE, k), zeros(4 * SIZE)
        if name == "Ibcast":
            req = comm.Ibcast([s, 4, MPI.INT], root=k % SIZE)
            r = s
        elif name == "Igather":
            req = comm.Igather([s, 4, MPI.INT], [r, 4, MPI.INT] if RANK == 1 else None, root=1)
        elif name == "Iscatter":
            req = comm.Iscatter([s, 4, MPI.INT] if RANK == 2 else None, [r, 4, MPI.INT], root=2)
        elif name == "Iallgather":
            req = comm.Iallgather([s, 4, MPI.INT], [r, 4, MPI.INT])
        elif name == "Ialltoall":
            req = comm.Ialltoall([s, 4, MPI.INT], [r, 4, MPI.INT])
        elif name == "Ireduce":
            req = comm.Ireduce([s, 4, MPI.INT], [r, 4, MPI.INT] if RANK == 3 else None, op=MPI.SUM, root=3)
        elif name == "Iallreduce":
            req = comm.Iallreduce([s, 4, MPI.INT], [r, 4, MPI.INT], op=MPI.MIN)
        elif name == "Ireduce_scatter_block":
            r = zeros(4)
            req = comm.Ireduce_scatter_block(s, r, op=MPI.SUM)
        elif name == "Iscan":
            req = comm.Iscan([s, 4, MPI.INT], [r, 4, MPI.INT], op=MPI.SUM)
        else:
            req = comm.Iexscan([s, 4, MPI.INT], [r, 4, MPI.INT], op=MPI.SUM)
        req.Wait()
        if name != "Iexscan" or RANK > 0:
            fold(r)
    s, r = ints(6, 9), zeros(6)
    comm.Bcast([s, 1, blocks], root=0)
    fold(s)
    comm.Allreduce(s, r, op=MPI.SUM)
    fold(r)
    MPI.INT.Create_contiguous(1).Free()
    inout = ints(4, 2)
    MPI.SUM.Reduce_local(ints(4, 3), inout)
    fold(inout)
    blocks.Free()
    comm.Free()


def python_ops():
    """Reductions by Python functions (test_op): mpi4py's callback asks MPI
    for the datatype's extent on every call, so MPI calls are made inside
    the collective; a commutative and a non-commutative one, each taking a
    millisecond, with one rank late in turn."""
    def slow_sum(a, b, dt):
        time.sleep(0.001)
        x, y = array.array("i", bytes(a)), array.array("i", bytes(b))
        b[:] = array.array("i", [p + q for p, q in zip(x, y)]).tobytes()

    def slow_fold(a, b, dt):
        time.sleep(0.001)
        x, y = array.array("i", bytes(a)), array.array("i", bytes(b))
        b[:] = array.array("i", [3 * q + p for p, q in zip(x, y)]).tobytes()

    for commute, fn in ((True, slow_sum), (False, slow_fold)):
        op = MPI.Op.Create(fn, commute=commute)
        for k in range(SIZE):
            late(k, 5)
            s, r = ints(2, k), zeros(2)
            WORLD.Allreduce([s, MPI.INT], [r, MPI.INT], op=op)
            fold(r)
            WORLD.Reduce([s, MPI.INT], [r, MPI.INT] if RANK == k else None, op=op, root=k)
            if RANK == k:
                fold(r)
            WORLD.Scan([s, MPI.INT], [r, MPI.INT], op=op)
            fold(r)
            r = zeros(1)
            WORLD.Reduce_scatter_block([ints(SIZE, k), MPI.INT], [r, MPI.INT], op=op)
            fold(r)
        op.Free()


def intercomm_objects():
    """Object collectives on an intercommunicator: each root in turn passes
    MPI.ROOT, its group MPI.PROC_NULL, the other group the root's rank."""
    colour = RANK % 2
    local = WORLD.Split(colour, RANK)
    inter = local.Create_intercomm(0, WORLD, 1 - colour, tag=12)
    lrank, lsize, rsize = local.Get_rank(), local.Get_size(), inter.Get_remote_size()
    for side in (0, 1):
        for root in range(lsize if colour == side else rsize):
            if colour == side:
                r = MPI.ROOT if root == lrank else MPI.PROC_NULL
                fold(inter.bcast({"from": RANK, "root": root}, root=r))
                fold(inter.gather(None, root=r))
                fold(inter.scatter([("x", i, root) for i in range(rsize)] if r == MPI.ROOT else None, root=r))
                fold(inter.reduce(None, op=MPI.SUM, root=r))
            else:
                fold(inter.bcast(None, root=root))
                fold(inter.gather(("g", RANK), root=root))
                fold(inter.scatter(None, root=root))
                fold(inter.reduce(RANK + 1, op=MPI.SUM, root=root))
    fold(inter.allgather(RANK))
    fold(inter.alltoall([(RANK, i) for i in range(rsize)]))
    fold(inter.allreduce(RANK, op=MPI.SUM))
    inter.barrier()
    fold(inter.sendrecv(("p2p", RANK), dest=lrank % rsize, source=MPI.ANY_SOURCE))
    merged = inter.Merge(high=bool(colour))
    fold(merged.allreduce(RANK))
    for c in (merged, inter, local):
        c.Free()


def p2p_kinds():
    """Buffered, ready, synchronous and persistent sends; probes;
    Sendrecv_replace; a cancelled receive; MPI_PROC_NULL peers."""
    comm = WORLD.Dup()
    to, frm = (RANK + 1) % SIZE, (RANK - 1) % SIZE
    buf = MPI.Alloc_mem(1 << 16)
    MPI.Attach_buffer(buf)
    s, r = ints(8, 4), zeros(8)
    comm.Bsend(s, dest=to, tag=1)
    comm.Recv(r, source=frm, tag=1)
    fold(r)
    comm.Ibsend(s, dest=to, tag=2).Wait()
    st = MPI.Status()
    comm.Probe(source=MPI.ANY_SOURCE, tag=2, status=st)
    comm.Recv(r, source=st.Get_source(), tag=2)
    fold(r)
    fold(st.Get_source())
    req = comm.Irecv(r, source=frm, tag=3)   # ready send: the receive is posted first
    comm.Barrier()
    comm.Rsend(s, dest=to, tag=3)
    req.Wait()
    fold(r)
    req = comm.Irecv(r, source=frm, tag=4)
    comm.Barrier()
    comm.Irsend(s, dest=to, tag=4).Wait()
    req.Wait()
    fold(r)
    comm.Issend(s, dest=to, tag=5).Wait() if RANK % 2 else None
    if RANK % 2 == 0:
        comm.Recv(r, source=frm, tag=5)
        fold(r)
        comm.Ssend(s, dest=to, tag=5)
    else:
        comm.Recv(r, source=frm, tag=5)
        fold(r)
    while not comm.Iprobe(source=frm, tag=6):
        if RANK == 0:
            comm.Send(s, dest=to, tag=6)
            break
        time.sleep(0)
    if RANK != 0:
        comm.Recv(r, source=frm, tag=6)
        fold(r)
        comm.Send(s, dest=to, tag=6)
    else:
        comm.Recv(r, source=frm, tag=6)
        fold(r)
    x = ints(4, 7)
    comm.Sendrecv_replace(x, dest=to, sendtag=7, source=frm, recvtag=7)
    fold(x)
    for init in (comm.Bsend_init, comm.Ssend_init, comm.Send_init):
        preq = [init(s, dest=to, tag=8), comm.Recv_init(r, source=frm, tag=8)]
        for _ in range(2):
            MPI.Prequest.Startall(preq)
            MPI.Request.Waitall(preq)
            fold(r)
        for p in preq:
            p.Free()
    rq = comm.Irecv(r, source=frm, tag=9)   # never sent: cancelled
    rq.Cancel()
    st = MPI.Status()
    rq.Wait(st)
    fold(st.Is_cancelled())
    comm.Send(s, dest=MPI.PROC_NULL, tag=10)
    comm.Recv(r, source=MPI.PROC_NULL, tag=10)
    comm.Barrier()
    reqs = [comm.Isend(ints(2, k), dest=to, tag=20 + k) for k in range(3)]
    outs = [zeros(2) for _ in range(3)]
    reqs += [comm.Irecv(outs[k], source=frm, tag=20 + k) for k in range(3)]
    done = 0
    while done < len(reqs):
        idx = MPI.Request.Waitsome(reqs) if done % 2 else MPI.Request.Testsome(reqs)
        done += len(idx or [])
    for o in outs:
        fold(o)
    MPI.Detach_buffer()
    MPI.Free_mem(buf)
    comm.Free()


def matched_probes():
    """Mprobe/Mrecv and Improbe/Imrecv, and pickle-5 messages (which use
    matched probes underneath)."""
    to, frm = (RANK + 1) % SIZE, (RANK - 1) % SIZE
    s = ints(5, 11)
    req = WORLD.Isend(s, dest=to, tag=30)
    msg = WORLD.Mprobe(source=frm, tag=30)
    r = zeros(5)
    msg.Recv(r)
    fold(r)
    req.Wait()
    req = WORLD.Isend(s, dest=to, tag=31)
    msg = None
    while msg is None:
        msg = WORLD.Improbe(source=MPI.ANY_SOURCE, tag=31)
    r = zeros(5)
    msg.Irecv(r).Wait()
    fold(r)
    req.Wait()
    try:
        from mpi4py.util import pkl5
    except ImportError:
        return
    comm = pkl5.Intracomm(WORLD)
    big = bytes(range(256)) * 300 + bytes([RANK])
    sreq = comm.isend(big, dest=to, tag=32)
    fold(comm.recv(source=frm, tag=32))
    sreq.wait()
    fold(comm.bcast(big if RANK == 0 else None, root=0))


def zero_length():
    """Zero-length messages with ANY_SOURCE/ANY_TAG and zero-count
    collectives while one rank is late."""
    to, frm = (RANK + 1) % SIZE, (RANK - 1) % SIZE
    empty = array.array("i")
    rq = [WORLD.Irecv(zeros(0), source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG), WORLD.Isend(empty, dest=to, tag=40)]
    st = MPI.Status()
    rq[0].Wait(st)
    rq[1].Wait()
    fold((st.Get_source(), st.Get_tag(), st.Get_count(MPI.INT)))
    WORLD.Sendrecv(empty, dest=to, sendtag=41, recvbuf=zeros(0), source=frm, recvtag=41)
    late(2, 15)
    z = zeros(0)
    WORLD.Bcast(z, root=1)
    WORLD.Allreduce(empty, z, op=MPI.SUM)
    WORLD.Reduce_scatter_block(empty, z, op=MPI.SUM)
    WORLD.Allgatherv(empty, [z, [0] * SIZE, [0] * SIZE, MPI.INT])
    WORLD.Alltoallv([empty, [0] * SIZE, [0] * SIZE, MPI.INT], [z, [0] * SIZE, [0] * SIZE, MPI.INT])
    WORLD.Gatherv(empty, [z, [0] * SIZE, [0] * SIZE, MPI.INT] if RANK == 3 else None, root=3)
    WORLD.Scatterv([empty, [0] * SIZE, [0] * SIZE, MPI.INT] if RANK == 0 else None, z, root=0)
    fold(WORLD.allreduce(RANK))


def communicators():
    """Dup_with_info, Idup, Create, Create_group, Split_type, names,
    Compare; a message and a collective on each."""
    info = MPI.Info.Create()
    info.Set("mpi_assert_no_any_tag", "false")
    made = [WORLD.Dup_with_info(info)]
    info.Free()
    dup, req = WORLD.Idup()
    req.Wait()
    made.append(dup)
    group = WORLD.Get_group()
    odd = group.Incl([r for r in range(SIZE) if r % 2])
    made.append(WORLD.Create(odd))
    made.append(WORLD.Create_group(odd, tag=7) if RANK % 2 else MPI.COMM_NULL)
    made.append(WORLD.Split_type(MPI.COMM_TYPE_SHARED, key=-RANK))
    made[0].Set_name("mpi4py dup_with_info")
    fold(made[0].Get_name())
    fold(MPI.Comm.Compare(made[0], made[1]))
    for k, c in enumerate(made):
        if c == MPI.COMM_NULL:
            continue
        n, me = c.Get_size(), c.Get_rank()
        late(k % SIZE, 5)
        fold(c.allreduce(me * 10 + k))
        fold(c.sendrecv((k, RANK), dest=(me + 1) % n, source=(me - 1) % n))
        c.Barrier()
    for c in made:
        if c != MPI.COMM_NULL:
            c.Free()
    odd.Free()
    group.Free()


def rma_kinds():
    """Atomics (Get_accumulate, Fetch_and_op, Compare_and_swap),
    request-based RMA (Rput, Rget, Raccumulate, Rget_accumulate), flushes
    and Win_sync; a shared window and a dynamic one."""
    n = 8
    mem = MPI.Alloc_mem(n * 4)
    win = MPI.Win.Create(mem, 4, comm=WORLD)
    win.Set_name("mpi4py window")
    view = memoryview(mem).cast("i")
    for i in range(n):
        view[i] = 0
    WORLD.Barrier()
    to = (RANK + 1) % SIZE
    win.Lock_all()
    res = zeros(1)
    win.Fetch_and_op(array.array("i", [1]), res, 0, 0, op=MPI.SUM)
    win.Flush(0)
    win.Get_accumulate(array.array("i", [RANK]), zeros(1), to, target=(1, 1, MPI.INT), op=MPI.MAX)
    win.Flush_all()
    win.Compare_and_swap(array.array("i", [RANK + 100]), array.array("i", [0]), zeros(1), to, 2)
    win.Flush_local(to)
    win.Rput(ints(1, 1), to, target=(3, 1, MPI.INT)).Wait()
    win.Flush_local_all()
    win.Raccumulate(array.array("i", [1]), 0, target=(4, 1, MPI.INT), op=MPI.SUM).Wait()
    win.Rget_accumulate(array.array("i", [2]), zeros(1), 0, target=(5, 1, MPI.INT), op=MPI.SUM).Wait()
    win.Sync()
    win.Unlock_all()
    WORLD.Barrier()
    win.Lock(to, MPI.LOCK_SHARED)
    got = zeros(n)
    win.Rget(got, to).Wait()
    win.Unlock(to)
    fold(array.array("i", [got[i] for i in (1, 2, 3, 4, 5)]))
    WORLD.Barrier()
    fold(array.array("i", [view[i] for i in (1, 2, 3)]))   # 0: fetch-and-op order varies
    win.Free()
    MPI.Free_mem(mem)
    node = WORLD.Split_type(MPI.COMM_TYPE_SHARED)
    swin = MPI.Win.Allocate_shared(4 * 4, 4, comm=node)
    buf, _ = swin.Shared_query(0)
    swin.Fence()
    if node.Get_rank() == 0:
        memoryview(buf).cast("i")[0] = 77
    swin.Fence()
    fold(memoryview(buf).cast("i")[0])
    swin.Free()
    node.Free()
    dyn = MPI.Win.Create_dynamic(comm=WORLD)
    area = MPI.Alloc_mem(16)
    dyn.Attach(area)
    dyn.Detach(area)
    MPI.Free_mem(area)
    dyn.Free()


def errors_returned():
    """With MPI_ERRORS_RETURN, an erroneous call returns an error (an
    exception here) and the program goes on: nothing was sent."""
    comm = WORLD.Dup()
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    try:
        comm.Send(ints(1), dest=SIZE + 5, tag=0)
        fold("no error")
    except MPI.Exception as e:
        fold(("error class", e.Get_error_class() == MPI.ERR_RANK))
    try:
        comm.Bcast(ints(1), root=SIZE + 5)
        fold("no error")
    except MPI.Exception as e:
        fold(("error class", e.Get_error_class() == MPI.ERR_ROOT))
    fold(comm.allreduce(1))
    comm.Free()


def port_connect():
    """An intercommunicator from Open_port/Accept/Connect between the lower
    and the upper half of the world; a message and a barrier on it."""
    half = RANK * 2 // SIZE
    local = WORLD.Split(half, RANK)
    port = MPI.Open_port() if RANK == 0 else None
    port = WORLD.bcast(port, root=0)
    if half == 0:
        inter = local.Accept(port, root=0)
    else:
        inter = local.Connect(port, root=0)
    me = local.Get_rank()
    fold(inter.sendrecv(("port", RANK), dest=me % inter.Get_remote_size(), source=MPI.ANY_SOURCE))
    inter.Barrier()
    fold(inter.allreduce(RANK))
    inter.Disconnect()
    if RANK == 0:
        MPI.Close_port(port)
    local.Free()


def spawn():
    """MPI_Comm_spawn of one child (this script again), an object broadcast
    and a message over the parent intercommunicator, Disconnect. The child
    runs child_of_spawn() and prints nothing."""
    child = WORLD.Spawn(sys.executable, args=[os.path.abspath(__file__), "--child"], maxprocs=1, root=0)
    if RANK == 0:
        child.bcast({"work": list(range(5))}, root=MPI.ROOT)
        fold(child.recv(source=0, tag=50))
    else:
        child.bcast(None, root=MPI.PROC_NULL)
    child.Barrier()
    child.Disconnect()


def child_of_spawn(parent):
    work = parent.bcast(None, root=0)
    if parent.Get_rank() == 0:
        parent.send(sum(work["work"]), dest=0, tag=50)
    parent.Barrier()
    parent.Disconnect()


def generalized_and_io(scratch):
    """A generalized request completed at once, and collective MPI-IO."""
    def query(status):
        status.Set_source(MPI.UNDEFINED)
        status.Set_tag(MPI.UNDEFINED)
        status.Set_cancelled(False)
        status.Set_elements(MPI.BYTE, 0)

    greq = MPI.Grequest.Start(query, lambda: None, lambda completed: None)
    greq.Complete()
    greq.Wait()
    fold("grequest done")
    if not scratch:
        return
    name = os.path.join(scratch, "mpi4py-io.bin")
    fh = MPI.File.Open(WORLD, name, MPI.MODE_CREATE | MPI.MODE_RDWR)
    fh.Write_at_all(RANK * 16, ints(4, 5))
    back = zeros(4)
    fh.Read_at_all(((RANK + 1) % SIZE) * 16, back)
    fh.Close()
    fold(back)
    WORLD.Barrier()
    if RANK == 0:
        os.unlink(name)


SITUATIONS = [self_collectives, world_collectives, python_ops, intercomm_objects, p2p_kinds, matched_probes,
              zero_length, communicators, rma_kinds, errors_returned, port_connect, spawn]


def main():
    """mpi4py_situations.py [--only NAME,...|--skip NAME,...] [SCRATCH_DIR]"""
    global crc
    args = sys.argv[1:]
    chosen = [f.__name__ for f in SITUATIONS] + ["generalized_and_io"]
    if len(args) >= 2 and args[0] in ("--only", "--skip"):
        names = args[1].split(",")
        unknown = [n for n in names if n not in chosen]
        if unknown:
            sys.exit("mpi4py_situations.py: no situation %s" % ", ".join(unknown))
        chosen = [n for n in chosen if (n in names) == (args[0] == "--only")]
        args = args[2:]
    scratch = args[0] if args else None
    table = {f.__name__: f for f in SITUATIONS}
    table["generalized_and_io"] = lambda: generalized_and_io(scratch)
    for name in chosen:
        crc = 0
        table[name]()
        crcs = WORLD.gather(crc, root=0)
        if RANK == 0:
            print("%s %s" % (name, " ".join("%08x" % c for c in crcs)))
            sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child_of_spawn(MPI.Comm.Get_parent())
        sys.exit(0)
    if SIZE != 4:
        sys.exit("mpi4py_situations.py: run on 4 ranks")
    main()
