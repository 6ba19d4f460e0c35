! mpi_fortran.F90 — the Fortran twin of tests/mpi/mpi_fortran_ref.c, built three
! times by tests/test-fortran.sh: with include 'mpif.h' (default), with
! -DBINDING_USE_MPI (use mpi) and with -DBINDING_F08 (use mpi_f08, IERROR
! left out). The same MPI calls in the same order with the same arguments as
! the C program: change the two together. Prints "rank R errors N".
! The mpif.h build needs -fallow-argument-mismatch (gfortran 10 and later):
! without an interface, MPI_BOTTOM and arrays passed to one routine clash.
#if defined(BINDING_F08)
#define DECL_STATUS(x) type(MPI_Status) :: x
#define DECL_STATUSES(x, n) type(MPI_Status) :: x(n)
#define SRC(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define SRCI(s, i) s(i)%MPI_SOURCE
#define TAGI(s, i) s(i)%MPI_TAG
#define COMM_T type(MPI_Comm)
#define REQ_T type(MPI_Request)
#define TYPE_T type(MPI_Datatype)
#define MSG_T type(MPI_Message)
#define WIN_T type(MPI_Win)
#define IERR
#else
#define DECL_STATUS(x) integer :: x(MPI_STATUS_SIZE)
#define DECL_STATUSES(x, n) integer :: x(MPI_STATUS_SIZE, n)
#define SRC(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define SRCI(s, i) s(MPI_SOURCE, i)
#define TAGI(s, i) s(MPI_TAG, i)
#define COMM_T integer
#define REQ_T integer
#define TYPE_T integer
#define MSG_T integer
#define WIN_T integer
#define IERR , ierr
#endif
program mpi_fortran
#if defined(BINDING_F08)
    use mpi_f08
#elif defined(BINDING_USE_MPI)
    use mpi
#endif
    implicit none
#if !defined(BINDING_F08) && !defined(BINDING_USE_MPI)
    include 'mpif.h'
#endif
    integer :: ierr, rank, size, right, left, count, idx, i, subrank, subsize, errors
    integer :: buf(8), out(8), all(64), counts(16), displs(16)
    DECL_STATUS(st)
    DECL_STATUSES(sts, 4)
    REQ_T :: reqs(4)
    TYPE_T :: types(16)
    COMM_T :: sub, dup, graph, cart
    logical :: flag
    integer :: elem_displs(16), src, dst
    MSG_T :: msg
    TYPE_T :: abs_type
    integer :: outcount, indices(4)
    integer(kind=MPI_ADDRESS_KIND) :: addr, displs_w(1)
    double precision :: t
    WIN_T :: win
    integer :: wbuf(16), one, fetched, never, old, peek, dbuf(4)
    WIN_T :: dwin
    integer(kind=MPI_ADDRESS_KIND) :: winsize, disp

    errors = 0
    displs_w = 0
    ierr = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
    call MPI_Comm_size(MPI_COMM_WORLD, size IERR)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)

    ! Blocking ring with wildcards: the status names the sender and tag.
    out = rank
    call MPI_Send(out, 8, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD IERR)
    call MPI_Recv(buf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st IERR)
    call MPI_Get_count(st, MPI_INTEGER, count IERR)
    call expect(SRC(st) == left .and. TAG(st) == 10 + left .and. count == 8 .and. buf(1) == left, 'recv')
    call MPI_Sendrecv(out, 4, MPI_INTEGER, right, 20, buf, 4, MPI_INTEGER, MPI_ANY_SOURCE, 20, &
                      MPI_COMM_WORLD, st IERR)
    call expect(SRC(st) == left .and. buf(1) == left, 'sendrecv')
    call MPI_Sendrecv(out, 2, MPI_INTEGER, left, 21, buf, 2, MPI_INTEGER, right, 21, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE IERR)
    call expect(buf(1) == right, 'sendrecv ignore')

    ! Non-blocking, completed together: statuses in request order.
    call MPI_Irecv(buf(1), 1, MPI_INTEGER, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, reqs(1) IERR)
    call MPI_Irecv(buf(2), 1, MPI_INTEGER, right, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(2) IERR)
    call MPI_Isend(out, 1, MPI_INTEGER, right, 30, MPI_COMM_WORLD, reqs(3) IERR)
    call MPI_Isend(out, 1, MPI_INTEGER, left, 31, MPI_COMM_WORLD, reqs(4) IERR)
    call MPI_Waitall(4, reqs, sts IERR)
    call expect(SRCI(sts, 1) == left .and. TAGI(sts, 1) == 30 .and. SRCI(sts, 2) == right &
                .and. TAGI(sts, 2) == 31 .and. buf(1) == left .and. buf(2) == right, 'waitall statuses')
    call expect(reqs(1) == MPI_REQUEST_NULL .and. reqs(4) == MPI_REQUEST_NULL, 'waitall frees requests')
    call MPI_Irecv(buf, 1, MPI_INTEGER, left, 32, MPI_COMM_WORLD, reqs(1) IERR)
    call MPI_Isend(out, 1, MPI_INTEGER, right, 32, MPI_COMM_WORLD, reqs(2) IERR)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE IERR)
    ! Waitany: index of the one live request (C 1, Fortran 2).
    reqs(1) = MPI_REQUEST_NULL
    call MPI_Irecv(buf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, reqs(2) IERR)
    call MPI_Isend(out, 1, MPI_INTEGER, right, 40, MPI_COMM_WORLD, reqs(3) IERR)
    call MPI_Waitany(2, reqs, idx, st IERR)
    call expect(idx == 2 .and. SRC(st) == left .and. TAG(st) == 40, 'waitany')
    call MPI_Wait(reqs(3), MPI_STATUS_IGNORE IERR)

    ! Collectives.
    call MPI_Barrier(MPI_COMM_WORLD IERR)
    buf(1) = -1
    if (rank == 0) buf(1) = 77
    call MPI_Bcast(buf, 1, MPI_INTEGER, 0, MPI_COMM_WORLD IERR)
    call expect(buf(1) == 77, 'bcast')
    call MPI_Reduce(out, buf, 1, MPI_INTEGER, MPI_SUM, mod(1, size), MPI_COMM_WORLD IERR)
    call expect(rank /= mod(1, size) .or. buf(1) == size * (size - 1) / 2, 'reduce')
    buf(1) = rank
    call MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD IERR)
    call expect(buf(1) == size - 1, 'allreduce in place')
    call MPI_Gather(out, 2, MPI_INTEGER, all, 2, MPI_INTEGER, 0, MPI_COMM_WORLD IERR)
    call expect(rank /= 0 .or. all(2 * (size - 1) + 1) == size - 1, 'gather')
    call MPI_Allgather(out, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD IERR)
    call expect(all(size) == size - 1, 'allgather')
    do i = 0, size - 1
        all(i + 1) = 100 * rank + i
    end do
    call MPI_Alltoall(all, 1, MPI_INTEGER, all(17), 1, MPI_INTEGER, MPI_COMM_WORLD IERR)
    call expect(all(17 + left) == 100 * left + rank, 'alltoall')
    do i = 1, size
        counts(i) = 1
        displs(i) = 4 * (i - 1)
        types(i) = MPI_INTEGER
    end do
    call MPI_Alltoallw(all, counts, displs, types, all(33), counts, displs, types, MPI_COMM_WORLD IERR)
    call expect(all(33 + left) == 100 * left + rank, 'alltoallw')
    call MPI_Scatter(all, 1, MPI_INTEGER, buf, 1, MPI_INTEGER, size - 1, MPI_COMM_WORLD IERR)
    call expect(buf(1) == 100 * (size - 1) + rank, 'scatter')

    ! A communicator split: collectives and wildcard receives inside it.
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub IERR)
    call MPI_Comm_rank(sub, subrank IERR)
    call MPI_Comm_size(sub, subsize IERR)
    buf(1) = 1
    call MPI_Allreduce(buf(1), buf(2), 1, MPI_INTEGER, MPI_SUM, sub IERR)
    call expect(buf(2) == subsize, 'split allreduce')
    if (subsize > 1) then
        call MPI_Send(out, 3, MPI_INTEGER, mod(subrank + 1, subsize), 50, sub IERR)
        call MPI_Recv(buf, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, st IERR)
        call expect(SRC(st) == mod(subrank + subsize - 1, subsize) .and. TAG(st) == 50, 'split recv')
    end if
    call MPI_Comm_free(sub IERR)
    call expect(sub == MPI_COMM_NULL, 'comm free')
    ! More conversions: persistent requests, Waitsome's indices, matched
    ! probes, MPI_BOTTOM, a non-blocking duplicate, a distributed graph
    ! with MPI_UNWEIGHTED and a neighbourhood MPI_Alltoallw.
    call MPI_Send_init(out, 2, MPI_INTEGER, right, 60, MPI_COMM_WORLD, reqs(1) IERR)
    call MPI_Recv_init(buf, 2, MPI_INTEGER, left, 60, MPI_COMM_WORLD, reqs(2) IERR)
    call MPI_Startall(2, reqs IERR)
    call MPI_Waitall(2, reqs, sts IERR)
    call expect(SRCI(sts, 2) == left .and. buf(1) == left, 'persistent')
    call MPI_Request_free(reqs(1) IERR)
    call MPI_Request_free(reqs(2) IERR)
    call expect(reqs(1) == MPI_REQUEST_NULL, 'request free')
    reqs(1) = MPI_REQUEST_NULL
    call MPI_Irecv(buf, 1, MPI_INTEGER, left, 61, MPI_COMM_WORLD, reqs(2) IERR)
    call MPI_Send(out, 1, MPI_INTEGER, right, 61, MPI_COMM_WORLD IERR)
    call MPI_Waitsome(2, reqs, outcount, indices, sts IERR)
    call expect(outcount == 1 .and. indices(1) == 2 .and. SRCI(sts, 1) == left, 'waitsome')
    call MPI_Isend(out, 5, MPI_INTEGER, right, 62, MPI_COMM_WORLD, reqs(1) IERR)
    call MPI_Mprobe(left, 62, MPI_COMM_WORLD, msg, st IERR)
    call MPI_Get_count(st, MPI_INTEGER, count IERR)
    call MPI_Mrecv(buf, count, MPI_INTEGER, msg, st IERR)
    call expect(count == 5 .and. TAG(st) == 62 .and. msg == MPI_MESSAGE_NULL, 'mprobe')
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE IERR)
    call MPI_Get_address(out(4), addr IERR)
    call MPI_Type_create_hindexed(1, (/ 1 /), (/ addr /), MPI_INTEGER, abs_type IERR)
    call MPI_Type_commit(abs_type IERR)
    call MPI_Sendrecv(MPI_BOTTOM, 1, abs_type, right, 63, buf, 1, MPI_INTEGER, left, 63, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE IERR)
    call expect(buf(1) == left, 'MPI_BOTTOM')
    call MPI_Type_free(abs_type IERR)
    call MPI_Comm_idup(MPI_COMM_WORLD, dup, reqs(1) IERR)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE IERR)
    call MPI_Barrier(dup IERR)
    call MPI_Dist_graph_create_adjacent(dup, 1, (/ left /), MPI_UNWEIGHTED, 1, (/ right /), MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., graph IERR)
    call MPI_Neighbor_allgather(out, 1, MPI_INTEGER, buf, 1, MPI_INTEGER, graph IERR)
    call expect(buf(1) == left, 'neighbor allgather')
    call MPI_Neighbor_alltoallw(out, counts, displs_w, types, buf, counts, displs_w, types, graph IERR)
    call expect(buf(1) == left, 'neighbor alltoallw')
    call MPI_Ibcast(buf, 2, MPI_INTEGER, 0, graph, reqs(1) IERR)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE IERR)
    call expect(buf(1) == size - 1, 'ibcast')
    call MPI_Comm_free(graph IERR)
    call MPI_Comm_free(dup IERR)

    ! Test variants on null requests (flag, MPI_UNDEFINED index and
    ! outcount), v-collectives, scans and a periodic Cartesian ring.
    flag = .false.
    reqs(1) = MPI_REQUEST_NULL
    reqs(2) = MPI_REQUEST_NULL
    call MPI_Testany(2, reqs, idx, flag, st IERR)
    call expect(flag .and. idx == MPI_UNDEFINED, 'testany')
    call MPI_Testall(2, reqs, flag, sts IERR)
    call expect(flag, 'testall')
    call MPI_Testsome(2, reqs, outcount, indices, sts IERR)
    call expect(outcount == MPI_UNDEFINED, 'testsome')
    do i = 1, size
        elem_displs(i) = i - 1
    end do
    call MPI_Gatherv(out, 1, MPI_INTEGER, all, counts, elem_displs, MPI_INTEGER, size - 1, MPI_COMM_WORLD IERR)
    call expect(rank /= size - 1 .or. all(size) == size - 1, 'gatherv')
    call MPI_Alltoallv(all, counts, elem_displs, MPI_INTEGER, all(17), counts, elem_displs, MPI_INTEGER, &
                       MPI_COMM_WORLD IERR)
    call MPI_Scan(out, buf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD IERR)
    call expect(buf(1) == rank * (rank + 1) / 2, 'scan')
    call MPI_Exscan(out, buf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD IERR)
    call expect(rank == 0 .or. buf(1) == rank * (rank - 1) / 2, 'exscan')
    call MPI_Reduce_scatter_block(all, buf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD IERR)
    call MPI_Cart_create(MPI_COMM_WORLD, 1, (/ size /), (/ .true. /), .false., cart IERR)
    call MPI_Comm_set_name(cart, '  fortran ring ' IERR)
    call MPI_Cart_shift(cart, 0, 1, src, dst IERR)
    call expect(src == left .and. dst == right, 'cart shift')
    call MPI_Neighbor_alltoall(all, 1, MPI_INTEGER, buf, 1, MPI_INTEGER, cart IERR)
    call MPI_Comm_free(cart IERR)

    ! One-sided: a named window; a fence epoch with put, get, accumulate
    ! and an MPI_PROC_NULL put; an exclusive lock with fetch_and_op;
    ! lock_all with request-based operations, every atomic and flushes; a
    ! dynamic window.
    do i = 1, 16
        wbuf(i) = rank * 100 + i - 1
    end do
    one = 1
    winsize = 64
    call MPI_Win_create(wbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win IERR)
    call MPI_Win_set_name(win, 'fortran window' IERR)
    call MPI_Win_fence(0, win IERR)
    disp = rank
    call MPI_Put(one, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win IERR)
    disp = 8
    call MPI_Get(buf, 2, MPI_INTEGER, left, disp, 2, MPI_INTEGER, win IERR)
    disp = 12
    call MPI_Accumulate(one, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win IERR)
    call MPI_Put(one, 1, MPI_INTEGER, MPI_PROC_NULL, disp, 1, MPI_INTEGER, win IERR)
    call MPI_Win_fence(0, win IERR)
    call expect(buf(1) == left * 100 + 8 .and. buf(2) == left * 100 + 9, 'rma get')
    disp = 13
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win IERR)
    call MPI_Fetch_and_op(one, fetched, MPI_INTEGER, 0, disp, MPI_SUM, win IERR)
    call MPI_Win_unlock(0, win IERR)
    call expect(fetched >= 13 .and. fetched < 13 + size, 'fetch_and_op')
    disp = 9
    call MPI_Win_lock_all(0, win IERR)
    call MPI_Rget(buf, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, reqs(1) IERR)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE IERR)
    call MPI_Win_flush(right, win IERR)
    ! a zero-count put, an atomic read, a compare_and_swap that never swaps,
    ! a request-based accumulate, an MPI_PROC_NULL get, flush_all
    disp = 14
    call MPI_Put(one, 0, MPI_INTEGER, right, disp, 0, MPI_INTEGER, win IERR)
    call MPI_Raccumulate(one, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_SUM, win, reqs(2) IERR)
    disp = 15
    never = -5
    call MPI_Get_accumulate(one, 1, MPI_INTEGER, peek, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_NO_OP, &
                            win IERR)
    call MPI_Compare_and_swap(one, never, old, MPI_INTEGER, right, disp, win IERR)
    call MPI_Get(fetched, 1, MPI_INTEGER, MPI_PROC_NULL, disp, 1, MPI_INTEGER, win IERR)
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE IERR)
    call MPI_Win_flush_all(win IERR)
    call MPI_Win_unlock_all(win IERR)
    call expect(buf(1) == right * 100 + 9, 'rget')
    call expect(peek == right * 100 + 15 .and. old == right * 100 + 15, 'get_accumulate, compare_and_swap')
    call MPI_Win_free(win IERR)
    ! a dynamic window with memory attached and detached
    call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, dwin IERR)
    winsize = 16
    call MPI_Win_attach(dwin, dbuf, winsize IERR)
    call MPI_Win_detach(dwin, dbuf IERR)
    call MPI_Win_free(dwin IERR)

    t = MPI_Wtime()
    call expect(MPI_Wtime() >= t, 'wtime')
    call expect(ierr == MPI_SUCCESS, 'ierror')
    write (*, '(A,I0,A,I0)') 'rank ', rank, ' errors ', errors
    call MPI_Finalize(ierr)

contains

    subroutine expect(cond, what)
        logical, intent(in) :: cond
        character(len=*), intent(in) :: what
        if (.not. cond) then
            errors = errors + 1
            write (0, '(A,I0,A,A)') 'rank ', rank, ': ', what
        end if
    end subroutine expect
end program mpi_fortran
