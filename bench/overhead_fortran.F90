! overhead_fortran.F90 — bench/overhead.c's "loop" in Fortran: per iteration
! MPI_Isend of 0 bytes to self, MPI_Recv from self, MPI_Wait on the send,
! MPI_Iprobe with nothing pending (4 MPI calls). Built with include 'mpif.h'
! (default) or -DBINDING_F08 (use mpi_f08) by bench/fortran.sh.
!   mpirun -np 1 ./overhead_fortran N    prints: loop calls=<4N> ns_per_call=<x>
program overhead_fortran
#if defined(BINDING_F08)
    use mpi_f08
    implicit none
    type(MPI_Request) :: req
    type(MPI_Status) :: st
#else
    implicit none
    include 'mpif.h'
    integer :: req, st(MPI_STATUS_SIZE)
#endif
    integer :: ierr, n, buf(1)
    logical :: flag
    character(len=32) :: arg
    integer(kind=8) :: t0, t1, rate
    ierr = 0
    call MPI_Init(ierr)
    call get_command_argument(1, arg)
    read (arg, *) n
    call iterations(n / 10)
    call system_clock(t0, rate)
    call iterations(n)
    call system_clock(t1)
    write (*, '(A,I0,A,F0.3)') 'loop calls=', 4 * n, ' ns_per_call=', &
        dble(t1 - t0) * 1.0d9 / dble(rate) / (4.0d0 * dble(n))
    call MPI_Finalize(ierr)
contains
    subroutine iterations(count)
        integer, intent(in) :: count
        integer :: k
        do k = 1, count
            call MPI_Isend(buf, 0, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, req, ierr)
            call MPI_Recv(buf, 0, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, st, ierr)
            call MPI_Wait(req, st, ierr)
            call MPI_Iprobe(0, 2, MPI_COMM_WORLD, flag, st, ierr)
        end do
    end subroutine iterations
end program overhead_fortran
