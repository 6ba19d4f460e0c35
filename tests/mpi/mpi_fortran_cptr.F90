! mpi_fortran_cptr.F90 — windows allocated from Fortran with a TYPE(C_PTR)
! base pointer (`use mpi`: Open MPI binds these calls to its
! mpi_win_allocate_cptr_, mpi_win_allocate_shared_cptr_ and
! mpi_win_shared_query_cptr_), for tests/test-fortran.sh: each rank puts
! into its right neighbour's window in a fence epoch, on a window from
! MPI_Win_allocate and one from MPI_Win_allocate_shared, and checks what
! arrived. Prints "rank R errors N".
program mpi_fortran_cptr
    use mpi
    use, intrinsic :: iso_c_binding
    implicit none
    integer :: ierr, rank, size, right, left, errors, win, shwin, unit
    type(c_ptr) :: base, shbase, qbase
    integer(kind=MPI_ADDRESS_KIND) :: bytes, disp, qbytes
    integer, pointer :: mem(:), shmem(:)

    errors = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)
    bytes = 16
    disp = 0

    call MPI_Win_allocate(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
    call c_f_pointer(base, mem, [4])
    mem = -1
    call MPI_Win_set_name(win, 'cptr window', ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_Put(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    if (mem(1) /= left) errors = errors + 1
    call MPI_Win_free(win, ierr)

    call MPI_Win_allocate_shared(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, shbase, shwin, ierr)
    call c_f_pointer(shbase, shmem, [4])
    shmem = -1
    call MPI_Win_set_name(shwin, 'cptr shared', ierr)
    call MPI_Win_shared_query(shwin, right, qbytes, unit, qbase, ierr)
    if (qbytes /= bytes .or. unit /= 4) errors = errors + 1
    call MPI_Win_fence(0, shwin, ierr)
    call MPI_Put(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, shwin, ierr)
    call MPI_Win_fence(0, shwin, ierr)
    if (shmem(1) /= left) errors = errors + 1
    call MPI_Win_free(shwin, ierr)

    write (*, '(A,I0,A,I0)') 'rank ', rank, ' errors ', errors
    call MPI_Finalize(ierr)
end program mpi_fortran_cptr
