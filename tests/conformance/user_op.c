/* user_op.c — user-defined reductions whose function calls MPI, as
 * mpi4py's do (MPI_Type_get_extent on every invocation; MPI allows it).
 * Those calls are recorded inside the collective that runs the function:
 * its MpiCollectiveBegin must come before them, at the collective's entry,
 * or the location's events go back in time (true times included). The
 * function takes 1 ms, so a Begin put after it would be that late. Every
 * reducing collective, on MPI_COMM_WORLD and on a split communicator, a
 * non-blocking one completed by MPI_Wait, and a call MPI refuses (count
 * -1, errors returned), which records no collective. 4 ranks. */
#include "conformance.h"

/* inout[i] = inout[i] * 3 + in[i]: not commutative, so MPI applies it in
 * rank order; MPI is asked about the datatype first */
static void slow_fold(void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Aint lb, extent;
    int size;
    MPI_Type_get_extent(*type, &lb, &extent);
    MPI_Type_size(*type, &size);
    if (extent != (MPI_Aint)sizeof(int) || size != (int)sizeof(int))
        cf_fail("the reduction's datatype");
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)inout)[i] * 3 + ((const int *)in)[i];
    cf_spin_ms(1.0);
}

static void reductions(MPI_Comm comm, MPI_Op op, int round)
{
    int me, n, v[4], out[4] = { 0 }, counts[4] = { 1, 1, 1, 1 };
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    cf_fill(v, 4, round);
    MPI_Allreduce(v, out, 2, MPI_INT, op, comm);
    cf_fold_ints(out, 2);
    MPI_Reduce(v, out, 2, MPI_INT, op, round % n, comm);
    if (me == round % n)
        cf_fold_ints(out, 2);
    MPI_Scan(v, out, 1, MPI_INT, op, comm);
    cf_fold_ints(out, 1);
    MPI_Exscan(v, out, 1, MPI_INT, op, comm);
    if (me > 0)
        cf_fold_ints(out, 1);
    MPI_Reduce_scatter_block(v, out, 1, MPI_INT, op, comm);
    cf_fold_ints(out, 1);
    MPI_Reduce_scatter(v, out, counts, MPI_INT, op, comm);
    cf_fold_ints(out, 1);
    MPI_Request req;
    MPI_Iallreduce(v, out, 1, MPI_INT, op, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    cf_fold_ints(out, 1);
}

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    MPI_Op fold;
    MPI_Op_create(slow_fold, 0, &fold);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, cf_rank % 2, cf_rank, &half);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int round = 0; round < 3; round++) {
        if (cf_rank == round)
            cf_sleep_ms(5);   /* a late rank: the others wait inside the reductions */
        reductions(MPI_COMM_WORLD, fold, round);
        reductions(half, fold, round);
        int v = round, out = 0;
        if (MPI_Allreduce(&v, &out, -1, MPI_INT, fold, MPI_COMM_WORLD) == MPI_SUCCESS)
            cf_fail("MPI_Allreduce with count -1 succeeded");
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        cf_fold_ints(&out, 1);
    }
    MPI_Comm_free(&half);
    MPI_Op_free(&fold);
    cf_finish();
    return 0;
}
