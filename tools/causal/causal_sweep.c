/* causal_sweep.c — the paper's Fig. 7 comparison: average cluster-timestamp
 * size per event against the maximum cluster size, for self-organizing
 * clusters (the two-level algorithm with causal_build.c's default merge
 * policy, replayed on the recorded causal order) and for pre-determined
 * contiguous clusters (ranks [0, s), [s, 2s), ...). An event's timestamp has
 * as many entries as its cluster had members when it was stamped, or
 * nranks (the Fidge/Mattern vector) for a cluster receive. */
#include "causal.h"

#include <stdlib.h>
#include <string.h>

void ci_sweep(const struct ci_log *log, uint32_t nranks, uint32_t max_size, double *self_organizing,
              double *contiguous)
{
    uint32_t N = nranks, s = max_size ? max_size : 1;
    uint32_t *cluster_of = malloc(sizeof *cluster_of * N), *size = malloc(sizeof *size * N);
    uint32_t *next = malloc(sizeof *next * N);   /* members as linked lists */
    uint32_t *last = malloc(sizeof *last * N), *mark = calloc(N, sizeof *mark), *clist = malloc(sizeof *clist * N);
    if (!cluster_of || !size || !next || !last || !mark || !clist) {
        *self_organizing = *contiguous = -1;
        goto done;
    }
    for (uint32_t r = 0; r < N; r++) {
        cluster_of[r] = last[r] = r;
        size[r] = 1;
        next[r] = UINT32_MAX;
    }
    double so = 0, co = 0, events = 0;
    uint32_t stamp = 0;
    for (size_t k = 0; k < log->nitems; k++) {
        const struct ci_log_item *it = &log->items[k];
        uint32_t r = it->rank, block = r / s * s, bsize = block + s <= N ? s : N - block;
        so += (double)it->plain * size[cluster_of[r]];
        co += (double)it->plain * bsize;
        events += it->plain;
        if (!it->has_receive)
            continue;
        events++;
        const uint32_t *part = log->part + it->part_first;
        /* contiguous: a partner outside the block makes a cluster receive */
        int outside = 0;
        for (uint32_t j = 0; j < it->npart && !outside; j++)
            outside = part[j] / s * s != block;
        co += outside ? N : bsize;
        /* self-organizing: merge every partner's cluster if the union fits */
        uint32_t own = cluster_of[r], n = 0, usize = size[own];
        stamp++;
        for (uint32_t j = 0; j < it->npart; j++) {
            uint32_t c = cluster_of[part[j]];
            if (c != own && mark[c] != stamp) {
                mark[c] = stamp;
                clist[n++] = c;
                usize += size[c];
            }
        }
        if (n && usize <= s) {
            for (uint32_t x = 0; x < n; x++) {
                uint32_t c = clist[x];
                for (uint32_t q = c; q != UINT32_MAX; q = next[q])
                    cluster_of[q] = own;
                next[last[own]] = c;
                last[own] = last[c];
                size[own] += size[c];
            }
            so += size[own];
        } else {
            so += n ? N : size[own];
        }
    }
    *self_organizing = events ? so / events : 0;
    *contiguous = events ? co / events : 0;
done:
    free(cluster_of);
    free(size);
    free(next);
    free(last);
    free(mark);
    free(clist);
}
