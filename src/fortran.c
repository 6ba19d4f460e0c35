/* fortran.c — argument conversion for the generated Fortran wrappers, and
 * the hand-written ones (MPI_Init, MPI_Init_thread, MPI_Comm_idup).
 *
 * The conversions follow Open MPI's own Fortran bindings: the wrappers then
 * call the C wrapper MPI_X, so a Fortran call records exactly what the same C
 * call records. Handle conversions go through PMPI_*_f2c/c2f so that they
 * are never recorded themselves. */
#include <config.h>
#include "fortran.h"
#include "hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* INTEGER elements of a Fortran status: Open MPI's MPI_STATUS_SIZE (mpif.h)
 * is the C status's size, which MPI_Status_c2f copies. */
#define F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* Open MPI's Fortran sentinels: common blocks that libmpi defines and the
 * program's own copy (if any) interposes; their address is the value. */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_unweighted_, mpi_fortran_weights_empty_;

void *st_f_buf(void *buf)
{
    if (buf == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (buf == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buf;
}

int *st_f_weights(MPI_Fint *weights)
{
    if (weights == &mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (weights == &mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return (int *)weights;
}

/* A status is converted in and out, so that one MPI leaves alone (a test
 * that found nothing) comes back to the program unchanged. */
MPI_Status *st_f_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (f == MPI_F_STATUS_IGNORE)
        return MPI_STATUS_IGNORE;
    PMPI_Status_f2c(f, c);
    return c;
}

void st_f_status_out(MPI_Fint *f, const MPI_Status *c)
{
    if (c != MPI_STATUS_IGNORE)
        PMPI_Status_c2f(c, f);
}

/* Room for n elements in *array (see fortran.h). */
static int room(void **array, int n, size_t size)
{
    if (n <= ST_F_SMALL)
        return 0;
    void *heap = malloc((size_t)n * size);
    if (!heap)
        return -1;
    *array = heap;
    return 0;
}

void st_f_release(void *array, void *small)
{
    if (array != small && array != MPI_STATUSES_IGNORE)
        free(array);
}

int st_f_statuses_in(MPI_Fint *f, int n, MPI_Status **c)
{
    if (f == MPI_F_STATUSES_IGNORE) {
        *c = MPI_STATUSES_IGNORE;
        return 0;
    }
    if (room((void **)c, n, sizeof **c) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        PMPI_Status_f2c(f + (size_t)i * F_STATUS_SIZE, &(*c)[i]);
    return 0;
}

void st_f_statuses_out(MPI_Fint *f, int n, const MPI_Status *c)
{
    if (c == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        PMPI_Status_c2f(&c[i], f + (size_t)i * F_STATUS_SIZE);
}

int st_f_requests_in(const MPI_Fint *f, int n, MPI_Request **c)
{
    if (room((void **)c, n, sizeof **c) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        (*c)[i] = PMPI_Request_f2c(f[i]);
    return 0;
}

void st_f_requests_out(MPI_Fint *f, int n, const MPI_Request *c)
{
    for (int i = 0; i < n; i++)
        f[i] = PMPI_Request_c2f(c[i]);
}

int st_f_types_in(const MPI_Fint *f, int n, MPI_Datatype **c)
{
    if (room((void **)c, n, sizeof **c) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        (*c)[i] = PMPI_Type_f2c(f[i]);
    return 0;
}

int st_f_peers(MPI_Comm comm, int neighbor, int out)
{
    if (comm == MPI_COMM_NULL)
        return 0;
    int in = 0, outd = 0;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &outd, &live);
    return out ? outd : in;
}

void st_f_indices(int *indices, int n)
{
    for (int i = 0; n != MPI_UNDEFINED && i < n; i++)
        indices[i] += 1;
}

_Noreturn void st_f_missing(const char *symbol)
{
    fprintf(stderr, "synctrace: %s not found: is Open MPI's Fortran library loaded?\n", symbol);
    abort();
}

/* ---------------------------------------------------------------- hand-written */

/* MPI_INIT(IERROR): Open MPI's binding passes no command line either. */
static void st_f_init(MPI_Fint *ierr)
{
    st_f_ret(ierr, MPI_Init(NULL, NULL));
}
ST_F_ALIAS(st_f_init, mpi_init);
ST_F_ALIAS(st_f_init, mpi_init_);
ST_F_ALIAS(st_f_init, mpi_init__);
ST_F_ALIAS(st_f_init, MPI_INIT);
ST_F_ALIAS(st_f_init, mpi_init_f08_);

static void st_f_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int c_provided = MPI_THREAD_SINGLE;
    int ret = MPI_Init_thread(NULL, NULL, (int)*required, &c_provided);
    if (ret == MPI_SUCCESS)
        *provided = (MPI_Fint)c_provided;
    st_f_ret(ierr, ret);
}
ST_F_ALIAS(st_f_init_thread, mpi_init_thread);
ST_F_ALIAS(st_f_init_thread, mpi_init_thread_);
ST_F_ALIAS(st_f_init_thread, mpi_init_thread__);
ST_F_ALIAS(st_f_init_thread, MPI_INIT_THREAD);
ST_F_ALIAS(st_f_init_thread, mpi_init_thread_f08_);

/* MPI_Comm_idup: the tracer reads the new communicator when the request
 * completes, through the pointer it was given, so that C handle must outlive
 * this call: one slot per call, kept (reachable) until the process exits. */
struct idup_slot {
    MPI_Comm comm;
    struct idup_slot *next;
};
static struct idup_slot *idup_slots;

static void st_f_comm_idup(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr)
{
    struct idup_slot *slot = malloc(sizeof *slot);
    if (!slot) {
        st_f_ret(ierr, MPI_ERR_NO_MEM);
        return;
    }
    slot->comm = MPI_COMM_NULL;
    slot->next = __atomic_load_n(&idup_slots, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&idup_slots, &slot->next, slot, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    MPI_Request c_request = MPI_REQUEST_NULL;
    int ret = MPI_Comm_idup(PMPI_Comm_f2c(*comm), &slot->comm, &c_request);
    if (ret == MPI_SUCCESS) {
        /* Open MPI hands out the new communicator's handle at once. */
        *newcomm = PMPI_Comm_c2f(slot->comm);
        *request = PMPI_Request_c2f(c_request);
    }
    st_f_ret(ierr, ret);
}
ST_F_ALIAS(st_f_comm_idup, mpi_comm_idup);
ST_F_ALIAS(st_f_comm_idup, mpi_comm_idup_);
ST_F_ALIAS(st_f_comm_idup, mpi_comm_idup__);
ST_F_ALIAS(st_f_comm_idup, MPI_COMM_IDUP);
ST_F_ALIAS(st_f_comm_idup, mpi_comm_idup_f08_);
