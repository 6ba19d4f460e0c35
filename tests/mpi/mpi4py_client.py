"""mpi4py_client.py — a Python MPI program for tests/test-clients.sh: the
calls mpi4py makes (pickled send/recv, buffer Isend/Irecv with a wildcard,
Sendrecv, allreduce, bcast, a split communicator, a non-blocking
Iallreduce). Prints one deterministic line per rank."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
total = 0
for it in range(50):
    obj = {"it": it, "from": rank, "data": list(range(rank, rank + 5))}
    if rank % 2 == 0:
        comm.send(obj, dest=right, tag=it)
        got = comm.recv(source=left, tag=it)
    else:
        got = comm.recv(source=left, tag=it)
        comm.send(obj, dest=right, tag=it)
    total += got["from"] + sum(got["data"])
    out = bytearray([rank % 256]) * 64
    buf = bytearray(64)
    reqs = [comm.Irecv([buf, MPI.BYTE], source=MPI.ANY_SOURCE, tag=1000 + it),
            comm.Isend([out, MPI.BYTE], dest=right, tag=1000 + it)]
    st = MPI.Status()
    MPI.Request.Waitall(reqs, [st, MPI.Status()])
    total += buf[0] + st.Get_source()
    back = bytearray(8)
    comm.Sendrecv([bytearray([it % 256]) * 8, MPI.BYTE], dest=left, sendtag=2000 + it,
                  recvbuf=[back, MPI.BYTE], source=right, recvtag=2000 + it)
    total += back[0]
    total += comm.allreduce(it + rank)
    total += comm.bcast(it * 3 if rank == 0 else None, root=0)
half = comm.Split(rank % 2, rank)
total += half.allreduce(rank)
a, b = bytearray(4), bytearray(4)
a[0] = rank
req = comm.Iallreduce([a, MPI.BYTE], [b, MPI.BYTE], op=MPI.MAX)
req.Wait()
total += b[0]
half.Free()
import os
os.write(1, b"rank %d of %d: checksum %d\n" % (rank, size, total))   # one write: lines of ranks stay whole
