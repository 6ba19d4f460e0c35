/* causal_finish.c — after the passes: the records, their bounds and
 * the cluster entries written as the index file's last sections, the
 * header with every section's place and checksum (causal.h). */
#include "causal_builder.h"

#include <stdlib.h>
#include <string.h>

/* The replay is over: its roles and vectors go before the index is
 * written, and their pages back to the system (many small arrays freed in
 * the middle of the heap otherwise stay resident). */
void cb_release_replay(struct builder *b)
{
    cb_pass_free(b);
    cb_roles_free(b);
    ci_recs_drop_windows(b->recs);
    cb_give_back_memory();
}

/* Section k of the index, written in order: at its place in the index
 * file, or into memory (no file). */
static void sec_open(struct builder *b, struct ostream *o, const uint64_t *off, int k)
{
    cb_os_open(o, b->fd, b->fd >= 0 ? off[k] : 0, &b->write_errno, b->bq);
}

/* The section is complete: its checksum (in the file), or its bytes
 * (memory: *mem owns them); it must have the layout's size. */
static int sec_close(struct ostream *o, uint64_t size, uint64_t *sum, void *mem)
{
    int bad = cb_os_done(o) != 0 || o->total != size;
    *sum = o->sum;
    if (o->fd >= 0) {
        cb_os_release(o);   /* (nothing left after cb_os_done: its block went to the queue) */
    } else {
        /* a section of no bytes still points somewhere (queries take its address) */
        *(void **)mem = o->buf ? o->buf : malloc(8);
        if (!*(void **)mem)
            bad = 1;
    }
    o->buf = NULL;
    return bad ? -1 : 0;
}

/* Every record in order (rank after rank): the record sections, written at
 * once. rec_bound: between two full-vector records of a rank, every record
 * has the same pair (the one before, the one after), so a run waits as a
 * count until the next full vector (or the rank's end) says its second. */
struct bounds {
    struct ostream *o;
    uint64_t pending;
    uint32_t before;
};

static int bounds_emit(struct bounds *bd, uint32_t after)
{
    uint32_t pair[2] = { bd->before, after };
    for (; bd->pending; bd->pending--)
        if (cb_os_put(bd->o, pair, sizeof pair))
            return -1;
    return 0;
}

static int write_records(struct builder *b, const uint64_t *off, struct ci_index *ix, uint64_t *sums,
                         const uint64_t *size)
{
    enum { COLS = 6 };
    static const int col[COLS] = { CI_SEC_REC_START, CI_SEC_REC_CLUSTER, CI_SEC_REC_SIZE, CI_SEC_REC_VEC,
                                   CI_SEC_REC_BOUND, CI_SEC_REC_LEVEL };
    void *dest[COLS] = { &ix->rec_start, &ix->rec_cluster, &ix->rec_size, &ix->rec_vec, &ix->rec_bound, &ix->rec_level };
    struct ostream o[COLS + CI_MAX_LEVELS];
    memset(o, 0, sizeof o);
    int bad = 0, n = COLS + (int)b->L;
    for (int k = 0; k < n; k++)
        sec_open(b, &o[k], off, k < COLS ? col[k] : CI_SEC_LEVELS + 3 * (k - COLS) + 2);
    enum { BATCH = 4096 };
    struct ci_rec *batch = malloc(sizeof *batch * BATCH);
    bad = bad || !batch;
    uint64_t at = 0;
    for (uint32_t r = 0; r < b->N && !bad; r++) {
        struct bounds bd = { &o[4], 0, CI_NONE };
        for (uint64_t k = 0; k < ci_recs_count(b->recs, r) && !bad;) {
            size_t m = ci_recs_count(b->recs, r) - k < BATCH ? (size_t)(ci_recs_count(b->recs, r) - k) : BATCH;
            if (ci_recs_read(b->recs, at, batch, m) != 0) {
                bad = 1;
                break;
            }
            for (size_t q = 0; q < m && !bad; q++) {
                const struct ci_rec *x = &batch[q];
                uint8_t level = (uint8_t)x->level;
                bad = x->rank != r || cb_os_put(&o[0], &x->start, 4) || cb_os_put(&o[1], &x->cluster, 4)
                      || cb_os_put(&o[2], &x->size, 4) || cb_os_put(&o[3], &x->vec, 8) || cb_os_put(&o[5], &level, 1);
                for (uint32_t lv = 0; lv < b->L && !bad; lv++)
                    bad = cb_os_put(&o[COLS + lv], &x->gcr[lv], 4);
                if (bad)
                    break;
                bd.pending++;
                if (x->level == b->L) {   /* a full vector: < 2^32 - 1 (ci_build) */
                    uint32_t t = (uint32_t)x->vec;
                    bd.pending--;
                    bad = bounds_emit(&bd, t);
                    bd.before = t;
                    bd.pending = 1;
                    bad = bad || bounds_emit(&bd, t);
                }
            }
            k += m;
            at += m;
        }
        bad = bad || bounds_emit(&bd, CI_NONE);
    }
    free(batch);
    for (int k = 0; k < n; k++) {
        int sec = k < COLS ? col[k] : CI_SEC_LEVELS + 3 * (k - COLS) + 2;
        void *mem = k < COLS ? dest[k] : (void *)&ix->rec_gcr[k - COLS];
        if (sec_close(&o[k], size[sec], &sums[sec], mem) != 0)
            bad = 1;
    }
    return bad ? -1 : 0;
}

/* The index: its counts, then every section after the full vectors' (which
 * the passes wrote) in turn, each at its place in the file (or in memory),
 * from the records and entries set aside and the clusters. */
int cb_finish(struct builder *b, struct ci_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->nranks = b->N;
    ix->nlevels = b->L;
    ix->chunk_shift = b->cshift;
    memcpy(ix->maxsize, b->cfg->maxsize, sizeof ix->maxsize);
    for (uint32_t r = 0; r < b->N; r++)
        ix->nrecords += ci_recs_count(b->recs, r);
    for (uint32_t k = 0; k < b->L; k++)
        for (uint32_t c = 0; c < b->N; c++)
            ix->nmap[k] += b->cmap[k][c].n;
    ix->nentries = b->nentries;
    ix->ntop = b->ntop;
    ix->strip_chunks = b->cpw;
    ix->nchunks = b->nchunks;
    ix->strip_low = b->cpw >= b->nchunks ? UINT32_MAX : b->cpw - 1;
    ix->ntchunks = b->ntop * b->nchunks;
    ix->nlines = (ix->ntchunks + CI_LINE_CODES - 1) / CI_LINE_CODES;
    ix->nbytes = b->bytes.total;
    uint64_t off[CI_MAX_SECTIONS], size[CI_MAX_SECTIONS], *sums = ix->sums;
    ci_layout(ix, off, size);
    if (cb_flush_line(b) || b->codes.total != size[CI_SEC_TLINE] || cb_os_done(&b->codes) || cb_os_done(&b->bytes))
        return -1;
    sums[CI_SEC_TLINE] = b->codes.sum;
    sums[CI_SEC_CBYTES] = b->bytes.sum;
    if (b->fd < 0) {
        ix->tline = b->codes.buf ? (struct ci_line *)(void *)b->codes.buf : malloc(sizeof *ix->tline);
        ix->cbytes = b->bytes.buf ? b->bytes.buf : malloc(1);
        b->codes.buf = b->bytes.buf = NULL;
        if (!ix->tline || !ix->cbytes)
            return -1;
    }
    struct ostream o;
    /* the cluster entries, copied from their file; with pass threads,
     * from theirs too: each filled its own columns and left zeros */
    if (ci_entries_flush(b->ent) != 0)
        return -1;
    sec_open(b, &o, off, CI_SEC_ENTRIES);
    uint64_t at = 0;
    uint32_t buf[1 << 14], more[1 << 14];
    while (at < size[CI_SEC_ENTRIES]) {
        size_t k = size[CI_SEC_ENTRIES] - at < sizeof buf ? (size_t)(size[CI_SEC_ENTRIES] - at) : sizeof buf;
        int bad = ci_entries_read(b->ent, buf, k, at) != 0;
        for (uint32_t t = 0; t < b->nmore_ent && !bad; t++) {
            bad = ci_entries_read(b->more_ent[t], more, k, at) != 0;
            for (size_t j = 0; j < k / 4 && !bad; j++)
                buf[j] += more[j];
        }
        if (bad || cb_os_put(&o, buf, k)) {
            cb_os_release(&o);
            return -1;
        }
        at += k;
    }
    if (sec_close(&o, size[CI_SEC_ENTRIES], &sums[CI_SEC_ENTRIES], &ix->entries) != 0)
        return -1;
    ci_entries_free(b->ent);
    b->ent = NULL;
    /* events and where each rank's records start */
    int bad = 0;
    sec_open(b, &o, off, CI_SEC_NEVENTS);
    for (uint32_t r = 0; r < b->N && !bad; r++)
        bad = cb_os_put(&o, &b->nevents[r], 8);
    if (sec_close(&o, size[CI_SEC_NEVENTS], &sums[CI_SEC_NEVENTS], &ix->nevents) != 0 || bad)
        return -1;
    sec_open(b, &o, off, CI_SEC_REC_FIRST);
    at = 0;
    for (uint32_t r = 0; r <= b->N && !bad; r++) {
        bad = cb_os_put(&o, &at, 8);
        at += r < b->N ? ci_recs_count(b->recs, r) : 0;
    }
    if (sec_close(&o, size[CI_SEC_REC_FIRST], &sums[CI_SEC_REC_FIRST], &ix->rec_first) != 0 || bad)
        return -1;
    if (write_records(b, off, ix, sums, size) != 0)
        return -1;
    /* per level: the clusters' maps */
    for (uint32_t k = 0; k < b->L; k++) {
        int sec = CI_SEC_LEVELS + 3 * (int)k;
        sec_open(b, &o, off, sec);
        at = 0;
        for (uint32_t c = 0; c <= b->N && !bad; c++) {
            bad = cb_os_put(&o, &at, 8);
            at += c < b->N ? b->cmap[k][c].n : 0;
        }
        if (sec_close(&o, size[sec], &sums[sec], &ix->map_first[k]) != 0 || bad)
            return -1;
        sec_open(b, &o, off, sec + 1);
        for (uint32_t c = 0; c < b->N && !bad; c++)
            bad = cb_os_put(&o, b->cmap[k][c].v, sizeof *b->cmap[k][c].v * b->cmap[k][c].n);
        if (sec_close(&o, size[sec + 1], &sums[sec + 1], &ix->map[k]) != 0 || bad)
            return -1;
    }
    if (b->fd < 0)
        return ci_prepare(ix);
    /* everything is in the file: ci_write_in_place adds the header */
    ix->body_in_file = 1;
    ix->entries_fd = b->fd;
    if (!(ix->entries_path = strdup(b->cfg->entries_file)))
        return -1;
    b->fd = -1;
    return 0;
}
