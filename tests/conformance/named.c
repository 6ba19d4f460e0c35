/* named.c — communicators named with MPI_Comm_set_name (a duplicate of
 * MPI_COMM_WORLD, a split, MPI_COMM_WORLD itself renamed), used for
 * messages and collectives. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "solver");
    MPI_Comm_split(MPI_COMM_WORLD, cf_rank % 2, cf_rank, &half);
    MPI_Comm_set_name(half, cf_rank % 2 ? "odd ranks" : "even ranks");
    MPI_Comm_set_name(MPI_COMM_WORLD, "everyone");
    cf_expect_record("name solver");
    cf_expect_record(cf_rank % 2 ? "name odd ranks" : "name even ranks");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(dup, name, &len);
    cf_fold(name, (size_t)len);
    int n = cf_size, v[4], out[4], hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    for (int round = 0; round < 3; round++) {
        cf_fill(v, 4, round);
        if (cf_rank == round)
            cf_sleep_ms(8);
        int to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
        cf_expect(cf_rank, to);
        MPI_Sendrecv(v, 4, MPI_INT, to, round, out, 4, MPI_INT, from, round, dup, MPI_STATUS_IGNORE);
        cf_fold_ints(out, 4);
        MPI_Allreduce(v, out, 4, MPI_INT, MPI_SUM, half);
        cf_fold_ints(out, 4);
        int hto = (hr + 1) % hs, hfrom = (hr + hs - 1) % hs;
        cf_expect(cf_rank, cf_world_of(half, hto));
        MPI_Sendrecv(v, 2, MPI_INT, hto, 9, out, 2, MPI_INT, hfrom, 9, half, MPI_STATUS_IGNORE);
        cf_fold_ints(out, 2);
        MPI_Bcast(v, 4, MPI_INT, round % n, MPI_COMM_WORLD);
        cf_fold_ints(v, 4);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    cf_finish();
    return 0;
}
