! mpi_polling_f.F90 — Fortran polling loops for tests/test-polling.sh (2 ranks),
! built with `use mpi` (default) and with -DBINDING_F08 (use mpi_f08). As in
! tests/mpi/mpi_polling.c: rank 0 makes exactly K+1 unsuccessful MPI_Test calls,
! sends "go", polls until the message comes; then K+2 unsuccessful
! MPI_Iprobe calls the same way. Prints what it received; on stderr
! "polls 0 MPI_Test N" and "polls 0 MPI_Iprobe N".
#if defined(BINDING_F08)
#define DECL_STATUS(x) type(MPI_Status) :: x
#define REQ_T type(MPI_Request)
#define IERR
#else
#define DECL_STATUS(x) integer :: x(MPI_STATUS_SIZE)
#define REQ_T integer
#define IERR , ierr
#endif
program mpi_polling_f
#if defined(BINDING_F08)
    use mpi_f08
#else
    use mpi
#endif
    implicit none
    integer, parameter :: k = 1000
    integer :: ierr, rank, v, one, i, ntest, nprobe
    logical :: flag
    REQ_T :: req
    DECL_STATUS(st)

    ierr = 0
    one = 1
    v = -1
    ntest = 0
    nprobe = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank IERR)
    if (rank == 0) then
        call MPI_Irecv(v, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, req IERR)
        do i = 1, k + 1
            call MPI_Test(req, flag, st IERR)
            ntest = ntest + 1
            if (flag) call MPI_Abort(MPI_COMM_WORLD, 3 IERR)
        end do
        call MPI_Send(one, 1, MPI_INTEGER, 1, 1001, MPI_COMM_WORLD IERR)
        do while (.not. flag)
            call MPI_Test(req, flag, st IERR)
            ntest = ntest + 1
        end do
        print '(a, i0)', 'test got ', v
        do i = 1, k + 2
            call MPI_Iprobe(1, 2, MPI_COMM_WORLD, flag, st IERR)
            nprobe = nprobe + 1
            if (flag) call MPI_Abort(MPI_COMM_WORLD, 3 IERR)
        end do
        call MPI_Send(one, 1, MPI_INTEGER, 1, 1002, MPI_COMM_WORLD IERR)
        do while (.not. flag)
            call MPI_Iprobe(1, 2, MPI_COMM_WORLD, flag, st IERR)
            nprobe = nprobe + 1
        end do
        call MPI_Recv(v, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, st IERR)
        print '(a, i0)', 'iprobe got ', v
        write (0, '(a, i0)') 'polls 0 MPI_Test ', ntest
        write (0, '(a, i0)') 'polls 0 MPI_Iprobe ', nprobe
    else if (rank == 1) then
        do i = 1, 2
            call MPI_Recv(one, 1, MPI_INTEGER, 0, 1000 + i, MPI_COMM_WORLD, st IERR)
            v = 7 * i
            call MPI_Send(v, 1, MPI_INTEGER, 0, i, MPI_COMM_WORLD IERR)
        end do
    end if
    call MPI_Finalize(ierr)
end program mpi_polling_f
