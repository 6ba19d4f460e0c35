/* neighbours_out.c — OUT/neighbours.txt: the in-neighbours of every rank
 * on each graph or distributed-graph communicator, which OTF2 has no
 * definition for (a Cartesian one's are its CartTopology). Read by
 * `synctrace waits` (tools/waits/waits_nbrs.c) for the neighbourhood
 * collectives. Written only when there is such a communicator; the
 * archive itself is left as OTF2 readers expect it.
 *   # synctrace neighbours 1
 *   COMM RANK N1,N2,...     (COMM: the archive's communicator reference,
 *                            RANK, Ni: world ranks; "-" for none) */
#include "otf2out_writing.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ow_write_neighbours(const char *dir, const struct rt_location *ranks, uint32_t nranks,
                        const struct mg_result *match, const uint32_t *cart_src_rank, char *err, size_t errlen)
{
    FILE *f = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/neighbours.txt", dir);
    for (uint32_t r = 0; r < nranks; r++) {
        if (ranks[r].thread)
            continue;
        for (uint32_t k = 0; k < ranks[r].ncomms; k++) {
            const struct rt_comm *m = &ranks[r].comms[k];
            uint32_t c = match->rank_comm[r][k];
            if (!m->has_in || m->cart_ndims || c >= match->ncomms || cart_src_rank[c] != UINT32_MAX)
                continue;
            if (!f && (!(f = fopen(path, "w")) || fprintf(f, "# synctrace neighbours 1\n") < 0))
                goto failed;
            fprintf(f, "%u %d ", c, ranks[r].rank);
            for (uint32_t i = 0; i < m->nin; i++)
                fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)m->in[i]);
            fprintf(f, "%s\n", m->nin ? "" : "-");
        }
    }
    if (f && (ferror(f) || fclose(f) != 0)) {
        f = NULL;
        goto failed;
    }
    return 0;
failed:
    snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    if (f)
        fclose(f);
    return -1;
}
