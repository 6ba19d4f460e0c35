/* causal_clusters.c — Ward & Taylor's self-organizing clusters during
 * the first pass (Fig. 5: climb while the partners lie outside, merge
 * when both clusters fit) and the records it decides, replayed with
 * vectors by the window passes; the cluster-size sweep fed as it goes. */
#include "causal_builder.h"

/* The first pass: record (r, i) stamped at level k (a receive stamped at
 * level k is a cluster receive of every level below); its vector's place. */
int cb_stamp(struct builder *b, uint32_t r, uint64_t i, uint32_t k, int receive)
{
    struct ci_rec x = { 0 };
    x.rank = r;
    x.start = (uint32_t)i;
    x.size = b->N;
    x.level = k;
    uint32_t self = (uint32_t)ci_recs_count(b->recs, r);
    for (uint32_t lv = 0; lv < b->L; lv++) {
        if (receive && lv < k)
            b->gcr[lv][r] = self;
        x.gcr[lv] = b->gcr[lv][r];
    }
    if (k < b->L) {
        x.cluster = b->cluster_of[k][r];
        x.size = (uint32_t)b->cmap[k][x.cluster].n;
        x.vec = b->nentries;
        b->nentries += x.size;
    } else {
        x.vec = b->ntop++;
    }
    b->last[r] = (struct rec_last){ k, x.cluster, x.size };
    return ci_recs_put(b->recs, &x);
}

/* A window pass: the columns of v (window-relative) in record x. */
int cb_stamp_window(struct builder *b, uint32_t r, const struct ci_rec *x, const uint32_t *v)
{
    if (x->level < b->L) {
        const uint32_t *map = b->cmap[x->level][x->cluster].v;
        uint32_t *out = ci_entries_span(b->ent, x->vec, x->size);
        if (!out)
            return -1;
        for (uint32_t j = 0; j < x->size; j++)
            if (map[j] - b->lo < b->W)
                out[j] = v[map[j] - b->lo];
        return 0;
    }
    if (x->vec != b->next_top++)
        return -1;   /* cannot happen: every pass stamps in the first one's order */
    return cb_encode_full(b, r, v);
}

/* Distinct level-k clusters of the partners other than r's own, into
 * b->clist; returns their number and the size of their union with r's. */
uint32_t cb_outside_clusters(struct builder *b, uint32_t k, uint32_t r, uint32_t *union_size)
{
    uint32_t own = b->cluster_of[k][r], n = 0, size = (uint32_t)b->cmap[k][own].n;
    b->stamp++;
    for (uint32_t j = 0; j < b->npart; j++) {
        uint32_t c = b->cluster_of[k][b->part[j]];
        if (c == own || b->mark[c] == b->stamp)
            continue;
        b->mark[c] = b->stamp;
        b->clist[n++] = c;
        size += (uint32_t)b->cmap[k][c].n;
    }
    *union_size = size;
    return n;
}

/* Fig. 3, for every level from k up: the partners' clusters join r's. A
 * merge at one level is a merge at every level above it (clusters nest), so
 * every level must accept. Returns 1 when merged, 0 when refused, -1. */
int cb_try_merge(struct builder *b, uint32_t k, uint32_t r, uint64_t i)
{
    for (uint32_t j = k; j < b->L; j++) {
        uint32_t usize, n = cb_outside_clusters(b, j, r, &usize);
        if (!n)
            continue;
        struct ci_merge_request req = { j, b->cfg->maxsize[j], (uint32_t)b->cmap[j][b->cluster_of[j][r]].n, usize,
                                        n + 1, r, i };
        if (!b->policy(&req, b->cfg->policy_arg))
            return 0;
    }
    for (uint32_t j = k; j < b->L; j++) {
        uint32_t usize, n = cb_outside_clusters(b, j, r, &usize);
        uint32_t into = b->cluster_of[j][r];
        for (uint32_t x = 0; x < n; x++) {
            struct u32vec *from = &b->cmap[j][b->clist[x]];
            for (size_t m = 0; m < from->n; m++) {
                if (cb_u32_push(&b->cmap[j][into], from->v[m]))
                    return -1;
                b->cluster_of[j][from->v[m]] = into;
            }
        }
    }
    return 1;
}

/* The causal order for the sweep (causal_sweep.c), in items: a rank's
 * consecutive events without partners, closed by a receive (with its
 * partners) or by another rank's event. */
void cb_sweep_flush(struct builder *b)
{
    if (b->sweep_pending)
        ci_sweeps_item(b->sweeps, b->sweep_rank, b->sweep_plain, 0, NULL, 0);
    b->sweep_pending = 0;
}

void cb_sweep_event(struct builder *b, uint32_t r, int receive)
{
    if (b->sweep_pending && b->sweep_rank != r)
        cb_sweep_flush(b);
    if (!b->sweep_pending) {
        b->sweep_pending = 1;
        b->sweep_rank = r;
        b->sweep_plain = 0;
    }
    if (!receive) {
        b->sweep_plain++;
        return;
    }
    ci_sweeps_item(b->sweeps, r, b->sweep_plain, 1, b->part, b->npart);
    b->sweep_pending = 0;
}
