/* fortran_cptr.c — Open MPI's TYPE(C_PTR) Fortran bindings of the window
 * allocation functions. `use mpi` resolves MPI_Win_allocate,
 * MPI_Win_allocate_shared and MPI_Win_shared_query with a TYPE(C_PTR) base
 * pointer to mpi_win_allocate_cptr_ etc. (mpif.h programs may call them by
 * name); Open MPI's cptr bindings take the plain bindings' arguments and
 * call them (ompi_win_allocate_cptr_f jumps to ompi_win_allocate_f). Not in
 * mpi.h, so not in wrappers/mpi.spec: without these a window allocated so
 * is unknown to the tracer, and every event on it is lost. The allocations
 * are converted and call the C wrappers, like the generated bindings;
 * shared_query records its region around Open MPI's binding. */
#include "tracer.h"
#include "hooks.h"
#include "regions.h"
#include "fortran.h"

static void st_f_win_allocate_cptr(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                   void *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win c_win = MPI_WIN_NULL;
    int ret = MPI_Win_allocate(*size, (int)*disp_unit, PMPI_Info_f2c(*info), PMPI_Comm_f2c(*comm), baseptr, &c_win);
    if (ret == MPI_SUCCESS)
        *win = PMPI_Win_c2f(c_win);
    st_f_ret(ierr, ret);
}
ST_F_ALIAS(st_f_win_allocate_cptr, mpi_win_allocate_cptr);
ST_F_ALIAS(st_f_win_allocate_cptr, mpi_win_allocate_cptr_);
ST_F_ALIAS(st_f_win_allocate_cptr, mpi_win_allocate_cptr__);
ST_F_ALIAS(st_f_win_allocate_cptr, MPI_WIN_ALLOCATE_CPTR);

static void st_f_win_allocate_shared_cptr(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                          void *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
    MPI_Win c_win = MPI_WIN_NULL;
    int ret = MPI_Win_allocate_shared(*size, (int)*disp_unit, PMPI_Info_f2c(*info), PMPI_Comm_f2c(*comm), baseptr,
                                      &c_win);
    if (ret == MPI_SUCCESS)
        *win = PMPI_Win_c2f(c_win);
    st_f_ret(ierr, ret);
}
ST_F_ALIAS(st_f_win_allocate_shared_cptr, mpi_win_allocate_shared_cptr);
ST_F_ALIAS(st_f_win_allocate_shared_cptr, mpi_win_allocate_shared_cptr_);
ST_F_ALIAS(st_f_win_allocate_shared_cptr, mpi_win_allocate_shared_cptr__);
ST_F_ALIAS(st_f_win_allocate_shared_cptr, MPI_WIN_ALLOCATE_SHARED_CPTR);

extern void pmpi_win_shared_query_cptr_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit,
                                        void *baseptr, MPI_Fint *ierr) __attribute__((weak));
static void st_f_win_shared_query_cptr(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size, MPI_Fint *disp_unit,
                                       void *baseptr, MPI_Fint *ierr)
{
    if (!pmpi_win_shared_query_cptr_)
        st_f_missing("pmpi_win_shared_query_cptr_");
    struct st_call call;
    int recording = st_call_begin(&call, ST_REGION_MPI_Win_shared_query);
    pmpi_win_shared_query_cptr_(win, rank, size, disp_unit, baseptr, ierr);
    if (recording)
        st_call_end(&call);
}
ST_F_ALIAS(st_f_win_shared_query_cptr, mpi_win_shared_query_cptr);
ST_F_ALIAS(st_f_win_shared_query_cptr, mpi_win_shared_query_cptr_);
ST_F_ALIAS(st_f_win_shared_query_cptr, mpi_win_shared_query_cptr__);
ST_F_ALIAS(st_f_win_shared_query_cptr, MPI_WIN_SHARED_QUERY_CPTR);
