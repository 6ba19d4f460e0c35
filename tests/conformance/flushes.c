/* flushes.c — enough events that the tracer flushes its buffers while the
 * program runs (test-conformance.sh runs it with SYNCTRACE_BUFFER_MB=1):
 * the flushes must not disturb the merged times, the true times or the
 * report's accuracy figures. A ring of messages and barriers. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
    for (int round = 0; round < 20000; round++) {
        int v = cf_rank * 100000 + round, w;
        cf_expect(cf_rank, to);
        MPI_Sendrecv(&v, 1, MPI_INT, to, round % 7, &w, 1, MPI_INT, from, round % 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        cf_fold_ints(&w, 1);
        if (round % 200 == 0)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    cf_finish();
    return 0;
}
