/* causal_roles.c — every event's roles in messages and collectives
 * (causal_builder.h): walked from the matches, sorted by (rank, event,
 * kind) into a nameless file, read back by each rank through a window. */
#include "causal_builder.h"

#include <stdio.h>
#include <stdlib.h>

/* (rank, event, kind): one event has one role of a kind (a send, a
 * receive, a collective's entry or exit), so this is a total order. */
static int by_rank_idx(const void *a, const void *b)
{
    const struct role_rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->ro.idx != y->ro.idx)
        return x->ro.idx < y->ro.idx ? -1 : 1;
    if (x->ro.kind != y->ro.kind)
        return x->ro.kind < y->ro.kind ? -1 : 1;
    if (x->ro.id != y->ro.id)
        return x->ro.id < y->ro.id ? -1 : 1;
    return (x->ro.member > y->ro.member) - (x->ro.member < y->ro.member);
}

static int add_role(struct builder *b, struct st_extsort *fill, struct mg_event_ref ev, uint32_t kind, uint32_t id,
                    uint32_t member, char *err, size_t errlen)
{
    if (ev.rank >= b->N || ev.index >= b->nevents[ev.rank]) {
        snprintf(err, errlen, "a matched event (%u:%llu) is not in the trace", ev.rank,
                 (unsigned long long)ev.index);
        return -1;
    }
    if ((++b->steps & 0xFFFF) == 1 && cb_cancelled(b)) {
        snprintf(err, errlen, "cancelled");
        return -1;
    }
    uint32_t r = ev.rank;
    b->nroles[r]++;
    struct role_rec x = { r, { (uint32_t)ev.index, kind, id, member } };
    if (st_extsort_put(fill, &x) != 0) {
        snprintf(err, errlen, "%s", st_extsort_error(fill));
        return -1;
    }
    return 0;
}

static int walk_roles(struct builder *b, struct st_extsort *fill, char *err, size_t errlen)
{
    const struct mg_result *m = b->match;
    int rc = 0;
    /* a receive's role keeps its sender's rank (in `member`): the
     * messages are read in order (msgstream.h) */
    struct mg_msg_reader it;
    mg_msgs_begin(m, &it);
    for (const struct mg_message *msg; !rc && (msg = mg_msgs_next(&it));)
        rc = add_role(b, fill, msg->send, ROLE_SEND, (uint32_t)it.index, 0, err, errlen)
             || add_role(b, fill, msg->recv, ROLE_RECV, (uint32_t)it.index, msg->send.rank, err, errlen);
    if (!rc && mg_msgs_error(m)) {
        snprintf(err, errlen, "%s", mg_msgs_error(m));
        rc = -1;
    }
    /* the instances in order, wherever they are (collstream.h): where
     * each one that forces anything starts, when set aside, to read it
     * back by number during the passes */
    struct mg_coll_reader cr;
    mg_colls_begin(m, &cr);
    for (const struct mg_collective *col; !rc && (col = mg_colls_next(&cr));) {
        size_t c = cr.index;
        int yes = cb_says_something(m, col);
        if (yes < 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
        if (yes <= 0)
            continue;
        if (b->coll_off)
            b->coll_off[c] = cr.offset;
        for (uint32_t k = 0; k < col->nmembers && !rc; k++)
            rc = add_role(b, fill, col->members[k].enter, ROLE_ENTER, (uint32_t)c, k, err, errlen)
                 || add_role(b, fill, col->members[k].exit, ROLE_EXIT, (uint32_t)c, k, err, errlen);
    }
    mg_colls_end(&cr);
    if (!rc && mg_colls_error(m)) {
        snprintf(err, errlen, "%s", mg_colls_error(m));
        rc = -1;
    }
    return rc ? -1 : 0;
}

/* The directory for the roles' file and sort: the index file's, else
 * $TMPDIR or /tmp. */
const char *cb_roles_dir(const struct builder *b, char *buf, size_t len)
{
    const char *f = b->cfg->entries_file, *slash = f ? strrchr(f, '/') : NULL;
    if (!f)
        return mg_default_spill_dir();
    if (!slash)
        return ".";
    snprintf(buf, len, "%.*s", (int)(slash - f), f);
    return *buf ? buf : "/";
}

int cb_setup_roles(struct builder *b, char *err, size_t errlen)
{
    char dirbuf[4300];
    const char *dir = cb_roles_dir(b, dirbuf, sizeof dirbuf);
    struct st_extsort *sort = st_extsort_new(sizeof(struct role_rec), by_rank_idx, ROLE_SORT_MEMORY, dir, err, errlen);
    if (!sort)
        return -1;
    int rc = walk_roles(b, sort, err, errlen);
    if (!rc && st_extsort_finish(sort) != 0) {
        snprintf(err, errlen, "%s", st_extsort_error(sort));
        rc = -1;
    }
    b->roles = &b->roles_file;
    if (!rc && st_aside_open(&b->roles_file, dir, "synctrace-roles", "the causal index's roles", err, errlen) != 0)
        rc = -1;
    b->roles_open = !rc;
    /* rank after rank, as sorted */
    struct role buf[1024];
    size_t n = 0;
    for (const struct role_rec *x; !rc && (x = st_extsort_next(sort));) {
        buf[n++] = x->ro;
        if (n == sizeof buf / sizeof *buf) {
            rc = st_aside_write(&b->roles_file, buf, sizeof *buf * n);
            n = 0;
        }
    }
    if (!rc && st_extsort_failed(sort)) {
        snprintf(err, errlen, "%s", st_extsort_error(sort));
        rc = -1;
    } else if (!rc && st_aside_write(&b->roles_file, buf, sizeof *buf * n) != 0) {
        rc = -1;
    }
    if (rc && b->roles_open && b->roles_file.failed)
        snprintf(err, errlen, "%s", b->roles_file.err);
    st_extsort_free(sort);
    for (uint64_t r = 0, at = 0; !rc && r < b->N; r++) {
        b->role_first[r] = at;
        at += b->nroles[r];
    }
    return rc ? -1 : 0;
}

/* Roles [rp, re) of rank r are those of its event i: a pointer to them
 * (read from the file as needed; the window grows when one event's roles
 * do not fit), valid until the next call for r; NULL when a read failed. */
const struct role *cb_roles_of(struct builder *b, uint32_t r, size_t rp, uint64_t i, size_t *re)
{
    static const struct role none;   /* a rank's roles all taken: no role, not a failure */
    struct role_window *w = &b->rwin[r];
    if (rp >= b->nroles[r]) {
        *re = rp;
        return &none;
    }
    for (;;) {
        if (w->v && rp >= w->first && rp <= w->first + w->n) {
            size_t off = rp - w->first, k = off;
            while (k < w->n && w->v[k].idx == i)
                k++;
            if (k < w->n || w->first + w->n == b->nroles[r]) {
                *re = w->first + k;
                return w->v + off;
            }
            if (off == 0 && w->n == w->cap) {   /* one event's roles fill the window: more room */
                struct role *v = realloc(w->v, sizeof *v * 2 * w->cap);
                if (!v)
                    return NULL;
                w->v = v;
                w->cap *= 2;
            }
        }
        if (!w->v) {
            if (!(w->v = malloc(sizeof *w->v * ROLE_WINDOW)))
                return NULL;
            w->cap = ROLE_WINDOW;
        }
        size_t left = b->nroles[r] - rp;
        w->first = rp;
        w->n = left < w->cap ? (uint32_t)left : w->cap;
        if (st_aside_read(b->roles, w->v, sizeof *w->v * w->n, (b->role_first[r] + rp) * sizeof *w->v) != 0) {
            w->n = 0;
            b->roles_failed = 1;
            return NULL;
        }
    }
}

void cb_roles_free(struct builder *b)
{
    for (uint32_t r = 0; b->rwin && r < b->N; r++) {
        free(b->rwin[r].v);
        b->rwin[r] = (struct role_window){ 0 };
    }
    if (b->roles_open)
        st_aside_close(&b->roles_file);
    b->roles_open = 0;
}
