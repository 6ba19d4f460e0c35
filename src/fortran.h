/* fortran.h — what the generated Fortran wrappers (wrappers/gen/fortran_*.c)
 * use to turn Fortran arguments into C ones. Open MPI's conventions: every
 * argument by reference, handles are MPI_Fint indices, a status is
 * MPI_STATUS_SIZE integers, and MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE,
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the addresses of common blocks. */
#ifndef SYNCTRACE_FORTRAN_H
#define SYNCTRACE_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

/* INTEGER arguments and arrays are handed to C as they are. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the Fortran wrappers assume a default INTEGER is a C int");

/* Arrays up to this many elements are converted on the stack. */
#define ST_F_SMALL 16

/* One Fortran spelling more of the wrapper `impl`, exported. */
#define ST_F_ALIAS(impl, sym) \
    extern __typeof__(impl) sym __attribute__((alias(#impl), visibility("default")))

static inline void st_f_ret(MPI_Fint *ierr, int ret)
{
    if (ierr)   /* IERROR is optional in mpi_f08 */
        *ierr = (MPI_Fint)ret;
}

void *st_f_buf(void *buf);
int *st_f_weights(MPI_Fint *weights);

MPI_Status *st_f_status_in(MPI_Fint *f, MPI_Status *c);
void st_f_status_out(MPI_Fint *f, const MPI_Status *c);
/* Arrays: *c starts as the caller's small array of ST_F_SMALL elements and
 * is replaced by heap memory for more; -1 when that is not available. */
int st_f_statuses_in(MPI_Fint *f, int n, MPI_Status **c);
void st_f_statuses_out(MPI_Fint *f, int n, const MPI_Status *c);
int st_f_requests_in(const MPI_Fint *f, int n, MPI_Request **c);
void st_f_requests_out(MPI_Fint *f, int n, const MPI_Request *c);
int st_f_types_in(const MPI_Fint *f, int n, MPI_Datatype **c);
void st_f_release(void *array, void *small);

/* Peers of an MPI_Alltoallw: the (remote) group size, or the in/out degree
 * of a neighbourhood collective's topology. */
int st_f_peers(MPI_Comm comm, int neighbor, int out);

/* C indices are 0-based, Fortran's 1-based; MPI_UNDEFINED stays. */
static inline MPI_Fint st_f_index(int c)
{
    return c == MPI_UNDEFINED ? MPI_UNDEFINED : c + 1;
}
void st_f_indices(int *indices, int n);

/* Open MPI's Fortran binding of a function is missing: cannot happen when
 * the program calls a Fortran binding, which lives in the same library. */
_Noreturn void st_f_missing(const char *symbol);

#endif
