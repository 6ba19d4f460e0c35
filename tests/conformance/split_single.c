/* split_single.c — communicators of one member: MPI_Comm_split with a
 * colour per rank, and MPI_Comm_create of a one-rank group, used for
 * collectives and self-messages at different times on each rank; then
 * splits into pairs whose members meet late. 4 ranks. */
#include "conformance.h"

static void use_alone(MPI_Comm c, int round)
{
    int v[3], out[3];
    cf_fill(v, 3, round);
    MPI_Barrier(c);
    MPI_Allreduce(v, out, 3, MPI_INT, MPI_SUM, c);
    cf_fold_ints(out, 3);
    MPI_Bcast(v, 3, MPI_INT, 0, c);
    cf_fold_ints(v, 3);
    cf_expect(cf_rank, cf_rank);
    MPI_Sendrecv(v, 3, MPI_INT, 0, round, out, 3, MPI_INT, 0, round, c, MPI_STATUS_IGNORE);
    cf_fold_ints(out, 3);
}

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    MPI_Comm alone, pair, mine;
    MPI_Comm_split(MPI_COMM_WORLD, cf_rank, 0, &alone);
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, 1, &cf_rank, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &mine);
    cf_sleep_ms(10 * cf_rank);
    for (int round = 0; round < 3; round++) {
        use_alone(alone, round);
        use_alone(mine, round + 10);
    }
    MPI_Comm_split(MPI_COMM_WORLD, cf_rank / 2, -cf_rank, &pair);
    int pr;
    MPI_Comm_rank(pair, &pr);
    if (cf_rank % 2)
        cf_sleep_ms(20);
    int x = cf_rank * 3, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, pair);
    cf_fold_ints(&y, 1);
    cf_expect(cf_rank, cf_world_of(pair, 1 - pr));
    MPI_Sendrecv(&x, 1, MPI_INT, 1 - pr, 0, &y, 1, MPI_INT, 1 - pr, 0, pair, MPI_STATUS_IGNORE);
    cf_fold_ints(&y, 1);
    MPI_Comm_free(&pair);
    MPI_Comm_free(&mine);
    MPI_Comm_free(&alone);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    cf_finish();
    return 0;
}
