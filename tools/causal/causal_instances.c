/* causal_instances.c — a collective instance during a pass
 * (causal_builder.h): set up at its first role, its data flow (flow.h)
 * as the members enter and exit, freed at its last role. */
#include "causal_builder.h"

#include <stdlib.h>
#include <string.h>

/* Member -> groups, both ways (counting sort). */
static int index_groups(struct instance *in)
{
    const struct mg_flow *f = &in->flow;
    uint32_t n = in->n;
    in->src_first = calloc(n + 1, sizeof *in->src_first);
    in->dst_first = calloc(n + 1, sizeof *in->dst_first);
    size_t ns = 0, nd = 0;
    for (uint32_t g = 0; g < f->ngroups; g++) {
        ns += f->groups[g].nsrc;
        nd += f->groups[g].ndst;
    }
    in->src_of = malloc(sizeof *in->src_of * (ns ? ns : 1));
    in->dst_of = malloc(sizeof *in->dst_of * (nd ? nd : 1));
    in->gacc = calloc(f->ngroups ? f->ngroups : 1, sizeof *in->gacc);
    in->gpending = malloc(sizeof *in->gpending * (f->ngroups ? f->ngroups : 1));
    if (!in->src_first || !in->dst_first || !in->src_of || !in->dst_of || !in->gacc || !in->gpending)
        return -1;
    for (uint32_t g = 0; g < f->ngroups; g++) {
        in->gpending[g] = f->groups[g].nsrc;
        for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
            in->src_first[f->groups[g].src[a] + 1]++;
        for (uint32_t a = 0; a < f->groups[g].ndst; a++)
            in->dst_first[f->groups[g].dst[a] + 1]++;
    }
    for (uint32_t k = 0; k < n; k++) {
        in->src_first[k + 1] += in->src_first[k];
        in->dst_first[k + 1] += in->dst_first[k];
    }
    uint32_t *sp = malloc(sizeof *sp * (n ? n : 1)), *dp = malloc(sizeof *dp * (n ? n : 1));
    if (!sp || !dp) {
        free(sp);
        free(dp);
        return -1;
    }
    memcpy(sp, in->src_first, sizeof *sp * n);
    memcpy(dp, in->dst_first, sizeof *dp * n);
    for (uint32_t g = 0; g < f->ngroups; g++) {
        for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
            in->src_of[sp[f->groups[g].src[a]]++] = g;
        for (uint32_t a = 0; a < f->groups[g].ndst; a++)
            in->dst_of[dp[f->groups[g].dst[a]]++] = g;
    }
    free(sp);
    free(dp);
    return 0;
}

/* Does instance col force anything? Neighbourhood instances apart: the
 * merged archive does not carry the topologies, and the index rebuilt
 * from it (synctrace causal) must be the merge's own. Instances where no
 * data flowed say nothing either. 1, 0, or -1 (memory). */
int cb_says_something(const struct mg_result *m, const struct mg_collective *col)
{
    if (col->neighbor)
        return 0;
    struct mg_flow f;
    memset(&f, 0, sizeof f);
    if (mg_flow_of(m, col, &f) != 0)
        return -1;
    int yes = f.order || f.ngroups;
    mg_flow_free(&f);
    return yes ? 1 : 0;
}

/* Instance c's state for what it forces (its data flow, flow.h, as the
 * constraint graph reads it), made at its first role in a pass. */
static int instance_setup(struct builder *b, struct instance *in, size_t c)
{
    const struct mg_result *m = b->match;
    if (b->coll_off) {
        if (mg_colls_read_at(m, b->coll_off[c], &in->col) != 0) {
            b->coll_failed = 1;
            return -1;
        }
        in->own = 1;
    } else {
        in->col = m->collectives[c];
    }
    const struct mg_collective *col = &in->col;
    in->n = col->nmembers;
    if (mg_flow_of(m, col, &in->flow) != 0)
        return -1;
    if (!(in->entered_flag = calloc(in->n ? in->n : 1, 1)))
        return -1;
    if (in->flow.order) {
        enum mg_shape sh = in->flow.prefix;
        in->shape = (uint8_t)sh;
        in->sorted_pos = malloc(sizeof *in->sorted_pos * (in->n ? in->n : 1));
        in->sorted_rank = malloc(sizeof *in->sorted_rank * (in->n ? in->n : 1));
        in->enter_copy = calloc(in->n ? in->n : 1, sizeof *in->enter_copy);
        in->pre = calloc(in->n ? in->n : 1, sizeof *in->pre);
        if (!in->sorted_pos || !in->sorted_rank || !in->enter_copy || !in->pre)
            return -1;
        /* position in communicator rank order, as the flow gives it */
        for (uint32_t s = 0; s < in->n; s++) {
            in->sorted_pos[in->flow.order[s]] = s;
            in->sorted_rank[s] = col->members[in->flow.order[s]].enter.rank;
        }
    } else {
        in->shape = MG_ALL_TO_ALL;   /* groups */
        if (index_groups(in) != 0)
            return -1;
    }
    return 0;
}

void cb_instance_free(struct builder *b, struct instance *in)
{
    for (uint32_t g = 0; in->gacc && g < in->flow.ngroups; g++)
        cb_vec_put(b, in->gacc[g]);
    free(in->gacc);
    free(in->gpending);
    free(in->src_first);
    free(in->src_of);
    free(in->dst_first);
    free(in->dst_of);
    mg_flow_free(&in->flow);
    if (in->enter_copy)
        for (uint32_t s = 0; s < in->n; s++)
            cb_vec_put(b, in->enter_copy[s]);
    if (in->pre)
        for (uint32_t s = 0; s < in->n; s++)
            cb_vec_put(b, in->pre[s]);
    free(in->sorted_pos);
    free(in->sorted_rank);
    free(in->enter_copy);
    free(in->pre);
    free(in->entered_flag);
    if (in->own)
        free(in->col.members);
    memset(in, 0, sizeof *in);
}

/* Instance c, set up at its first role of the pass; NULL on failure. */
struct instance *cb_instance_get(struct builder *b, size_t c)
{
    struct instance *in = flight_get(&b->under_way, c);
    if (in)
        return in;
    in = calloc(1, sizeof *in);
    if (!in || u64map_put(&b->under_way, c, (uintptr_t)in) != 0) {
        free(in);
        b->oom = 1;
        return NULL;
    }
    if (instance_setup(b, in, c) != 0) {
        b->oom = !b->coll_failed;
        return NULL;   /* cb_pass_free frees it */
    }
    return in;
}

/* Every member entered and exited: nothing of the pass needs it again. */
void cb_instance_retire(struct builder *b, size_t c, struct instance *in)
{
    if (in->entered < in->n || in->exited < in->n)
        return;
    cb_instance_free(b, in);
    free(in);
    u64map_remove(&b->under_way, c, NULL);
}

/* Can the exit of member k go now? If not, *wait is a rank to wait for. */
int cb_exit_ready(const struct instance *in, uint32_t k, uint32_t *wait)
{
    const struct mg_collective *col = &in->col;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t need = in->sorted_pos[k] + (in->shape == MG_SCAN);
        if (in->prefix >= need)
            return 1;
        *wait = in->sorted_rank[in->prefix];
        return 0;
    }
    for (uint32_t x = in->dst_first[k]; x < in->dst_first[k + 1]; x++) {
        uint32_t g = in->dst_of[x];
        if (!in->gpending[g])
            continue;
        const struct mg_flow_group *grp = &in->flow.groups[g];
        for (uint32_t a = 0; a < grp->nsrc; a++)
            if (!in->entered_flag[grp->src[a]]) {
                *wait = col->members[grp->src[a]].enter.rank;
                return 0;
            }
    }
    return 1;
}

void cb_add_partner(struct builder *b, uint32_t q, uint32_t self)
{
    if (q == self || b->mark[q] == b->stamp)
        return;
    b->mark[q] = b->stamp;
    b->part[b->npart++] = q;
}

/* Fold what an exit receives into v and note its partners. */
void cb_exit_receive(struct builder *b, struct instance *in, uint32_t k, uint32_t self, uint32_t *v)
{
    const struct mg_collective *col = &in->col;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t need = in->sorted_pos[k] + (in->shape == MG_SCAN);
        if (need) {
            cb_join(v, in->pre[need - 1], b->W);
            for (uint32_t s = 0; s < need; s++)
                cb_add_partner(b, in->sorted_rank[s], self);
        }
        return;
    }
    for (uint32_t x = in->dst_first[k]; x < in->dst_first[k + 1]; x++) {
        uint32_t g = in->dst_of[x];
        const struct mg_flow_group *grp = &in->flow.groups[g];
        if (in->gacc[g])
            cb_join(v, in->gacc[g], b->W);
        for (uint32_t a = 0; a < grp->nsrc; a++)
            cb_add_partner(b, col->members[grp->src[a]].enter.rank, self);
    }
}

void cb_enter_send(struct builder *b, struct instance *in, uint32_t k, const uint32_t *v)
{
    in->entered_flag[k] = 1;
    in->entered++;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t s = in->sorted_pos[k];
        in->enter_copy[s] = cb_vec_copy(b, v);
        while (in->prefix < in->n && in->enter_copy[in->prefix]) {
            uint32_t p = in->prefix;
            in->pre[p] = in->enter_copy[p];
            in->enter_copy[p] = NULL;
            if (p && in->pre[p])
                cb_join(in->pre[p], in->pre[p - 1], b->W);
            in->prefix++;
        }
        return;
    }
    for (uint32_t x = in->src_first[k]; x < in->src_first[k + 1]; x++) {
        uint32_t g = in->src_of[x];
        if (!in->gacc[g])
            in->gacc[g] = cb_vec_copy(b, v);
        else
            cb_join(in->gacc[g], v, b->W);
        in->gpending[g]--;
    }
}
