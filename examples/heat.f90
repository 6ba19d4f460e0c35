! heat.f90 — the Fortran example: 1-D heat diffusion (Jacobi) with a halo
! exchange between neighbouring ranks, written with `use mpi_f08`.
!
!   mpirun -np 4 ./heat [ITERATIONS]          (default 200)
!
! Each rank owns N cells of a rod whose ends are held at 0 and whose middle
! starts at 100 degrees. Every iteration exchanges one halo cell with each
! neighbour (MPI_Irecv / MPI_Isend / MPI_Waitall, MPI_PROC_NULL at the ends),
! every 10th with MPI_Sendrecv instead, and reduces the largest change with
! MPI_Allreduce. Rank 0 gathers the final profile (MPI_Gather) and prints a
! summary that does not depend on timing, so stdout is the same with and
! without a tracer.
program heat
    use mpi_f08
    implicit none
    integer, parameter :: n = 256
    double precision :: u(0:n + 1), v(0:n + 1), change, global_change
    double precision, allocatable :: profile(:)
    integer :: rank, size, left, right, iters, it, i, nargs
    character(len=32) :: arg
    type(MPI_Request) :: reqs(4)

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    iters = 200
    nargs = command_argument_count()
    if (nargs >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) iters
    end if
    left = rank - 1
    right = rank + 1
    if (left < 0) left = MPI_PROC_NULL
    if (right >= size) right = MPI_PROC_NULL

    u = 0
    do i = 1, n
        if (abs(rank * n + i - size * n / 2) < size * n / 8) u(i) = 100
    end do

    do it = 1, iters
        if (mod(it, 10) == 0) then
            call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 1, u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 1, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE)
            call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 2, u(0), 1, MPI_DOUBLE_PRECISION, left, 2, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else
            call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1))
            call MPI_Irecv(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, reqs(2))
            call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(3))
            call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, reqs(4))
            call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
        end if
        if (left == MPI_PROC_NULL) u(0) = 0
        if (right == MPI_PROC_NULL) u(n + 1) = 0
        do i = 1, n
            v(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1))
        end do
        change = maxval(abs(v(1:n) - u(1:n)))
        u(1:n) = v(1:n)
        call MPI_Allreduce(change, global_change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    end do

    allocate (profile(n * size))
    call MPI_Gather(u(1), n, MPI_DOUBLE_PRECISION, profile, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        write (*, '(A,I0,A,I0,A)') 'heat: ', size, ' ranks, ', iters, ' iterations'
        write (*, '(A,F12.6)') 'heat: total heat ', sum(profile)
        write (*, '(A,F12.6)') 'heat: last largest change ', global_change
    end if
    call MPI_Finalize()
end program heat
