/* waits_share.c — see waits_share.h. What travels: pieces, each a kind
 * byte then its content.
 *   'R' records: (tag, the record's bytes) after one another, tag the
 *       record's kind (wt_read's table), its bytes that kind's
 *   'E' the worker's end, once: ok (1 byte), then when ok its counts
 *       (events, epochs unpaired, have_truth, windows, epochs, operations),
 *       each window's members, its epochs and their operations (struct
 *       bytes: every process is the same program)
 * A worker's reading threads fill a piece each and send it when full
 * (one at a time: MPI_THREAD_SERIALIZED), so a worker holds --jobs pieces
 * at most; process 0's receiving thread holds one and puts the records
 * into the sorters as their last putter. The sorters' order is total, so
 * which process or thread put a record does not change the output. */
#include <config.h>
#include "waits_share.h"
#include "heldstderr.h"
#include "pmerge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KINDS_MAX 32
#define PIECE_MIN ((size_t)64 << 10)
#define PIECE_MAX ((size_t)4 << 20)

struct piece {
    uint8_t *buf;
    size_t n;
};

struct wt_share {
    uint32_t place, processes, local;
    uint32_t *first;          /* processes + 1: the shares of the locations */
    int ended;                /* an agreement failed (or the last was made): none follows */
    int quiet, zero_failed;
    uint32_t nkinds;
    struct wt_sorted *sorter[KINDS_MAX];
    size_t bytes[KINDS_MAX];
    /* a worker's */
    struct piece *pieces;     /* one per reading thread */
    uint32_t npieces;
    size_t piece_cap;
    pthread_mutex_t send_lock;
    /* process 0's */
    uint32_t putter;          /* the sorters' putter for the workers' records */
    pthread_t receiver;
    int receiving;            /* the receiving thread runs */
    int received;             /* every worker's stream taken to its end */
    uint8_t **tail;           /* per worker: its 'E' piece */
    size_t *tail_len;
    char recv_err[512];
};

uint32_t wt_share_place(const struct wt_share *sh)
{
    return sh->place;
}

uint32_t wt_share_local(const struct wt_share *sh)
{
    return sh->local;
}

int wt_share_quiet(const struct wt_share *sh)
{
    return sh->quiet;
}

/* Every process says whether it may go on; 1 when all may. After a
 * failed one, none follows (every process stops where it failed). */
static int agree(struct wt_share *sh, int ok)
{
    if (sh->ended)
        return 0;
    int zero_ok = 1;
    int all = pm_agree_zero(ok, &zero_ok);
    if (!all) {
        sh->ended = 1;
        sh->zero_failed = !zero_ok;
        sh->quiet = ok;       /* this process's part went well: the one that failed says why */
    }
    return all;
}

int wt_share_main(int argc, char **argv, uint32_t processes, int (*run)(int, char **, struct wt_share *))
{
    if (pm_start_command(processes, "waits") != 0)
        return 1;
    struct wt_share sh = { .place = pm_place(), .processes = pm_processes() };
    sh.local = pm_local_processes();
    pthread_mutex_init(&sh.send_lock, NULL);
    struct held_stderr held = { -1, -1 };
    if (sh.place > 0)
        quiet_worker(&held, "synctrace-waits-stderr");
    int rc = run(argc, argv, &sh);
    /* the last agreement: process 0's output written, or not */
    if (!sh.ended && !agree(&sh, rc == 0) && rc == 0)
        rc = 1;
    sh.ended = 1;
    for (uint32_t p = 0; sh.tail && p < sh.processes; p++)
        free(sh.tail[p]);
    free(sh.tail);
    free(sh.tail_len);
    for (uint32_t k = 0; k < sh.npieces; k++)
        free(sh.pieces[k].buf);
    free(sh.pieces);
    free(sh.first);
    pthread_mutex_destroy(&sh.send_lock);
    release_stderr(&held, !sh.zero_failed);
    pm_finish();
    return rc;
}

int wt_share_open(struct wt_share *sh, int ok, const uint64_t *events, uint32_t n, uint32_t *first, uint32_t *end)
{
    if (ok && !(sh->first = malloc(sizeof *sh->first * ((size_t)sh->processes + 1))))
        ok = 0;
    if (!agree(sh, ok))
        return -1;
    /* the same declared events everywhere: the same shares */
    pm_share(events, n, sh->processes, sh->first);
    *first = sh->first[sh->place];
    *end = sh->first[sh->place + 1];
    return 0;
}

/* ---------- a worker: its records streamed ---------- */

static void send_piece(struct wt_share *sh, struct piece *pc)
{
    pthread_mutex_lock(&sh->send_lock);
    pm_send_piece(pc->buf, pc->n);
    pthread_mutex_unlock(&sh->send_lock);
    pc->n = 1;                /* the 'R' stays */
}

/* wt_sorted's sink: one record into its thread's piece (rec NULL: the
 * thread's records all put, the piece sent). */
static int sink(void *ctx, uint32_t putter, uint32_t tag, const void *rec, size_t bytes)
{
    struct wt_share *sh = ctx;
    struct piece *pc = &sh->pieces[putter];
    if (!rec) {
        if (pc->n > 1)
            send_piece(sh, pc);
        return 0;
    }
    if (pc->n + 1 + bytes > sh->piece_cap)
        send_piece(sh, pc);
    pc->buf[pc->n] = (uint8_t)tag;
    memcpy(pc->buf + pc->n + 1, rec, bytes);
    pc->n += 1 + bytes;
    return 0;
}

/* ---------- process 0: the workers' streams ---------- */

static void recv_failed(struct wt_share *sh, const char *why)
{
    if (!*sh->recv_err)
        snprintf(sh->recv_err, sizeof sh->recv_err, "%s", why);
}

/* One piece of worker `from`'s stream. */
static void take_piece(struct wt_share *sh, uint32_t from, const uint8_t *buf, size_t len, uint32_t *ends)
{
    char why[256];
    if (from == 0 || from >= sh->processes || len == 0 || (buf[0] != 'R' && buf[0] != 'E') || sh->tail[from]) {
        snprintf(why, sizeof why, "process %u's records came damaged", from);
        recv_failed(sh, why);
        if (from > 0 && from < sh->processes && len && buf[0] == 'E' && !sh->tail[from])
            (*ends)++;
        return;
    }
    if (buf[0] == 'E') {
        (*ends)++;
        if (!(sh->tail[from] = malloc(len))) {
            recv_failed(sh, "out of memory for a worker's epochs");
            return;
        }
        memcpy(sh->tail[from], buf, len);
        sh->tail_len[from] = len;
        return;
    }
    if (*sh->recv_err || !sh->nkinds)
        return;               /* this read has failed: the stream is only drained */
    _Alignas(max_align_t) uint8_t rec[1024];
    for (size_t at = 1; at < len;) {
        uint32_t tag = buf[at];
        if (tag >= sh->nkinds || sh->bytes[tag] > sizeof rec || at + 1 + sh->bytes[tag] > len) {
            snprintf(why, sizeof why, "process %u's records came damaged", from);
            recv_failed(sh, why);
            return;
        }
        memcpy(rec, buf + at + 1, sh->bytes[tag]);
        if (wt_sorted_put(sh->sorter[tag], sh->putter, rec) != 0) {
            recv_failed(sh, wt_sorted_part_error(sh->sorter[tag], sh->putter));
            return;
        }
        at += 1 + sh->bytes[tag];
    }
}

/* Every worker's stream to its end (even after a failure: a worker
 * blocked in a send would never reach the agreement), then the workers'
 * records sorted (this putter's part). */
static void receive_all(struct wt_share *sh)
{
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    uint32_t ends = 0;
    while (ends + 1 < sh->processes) {
        uint32_t from = pm_receive_piece(&buf, &cap, &len);
        take_piece(sh, from, buf, len, &ends);
    }
    free(buf);
    for (uint32_t k = 0; k < sh->nkinds && !*sh->recv_err; k++)
        if (wt_sorted_finish_part(sh->sorter[k], sh->putter) != 0)
            recv_failed(sh, wt_sorted_part_error(sh->sorter[k], sh->putter));
    sh->received = 1;
}

static void *receive_thread(void *arg)
{
    receive_all(arg);
    return NULL;
}

int wt_share_sorters(struct wt_share *sh, const struct wt_kind *kinds, uint32_t nkinds, uint32_t jobs,
                     const char *spill_dir, char *err, size_t errlen)
{
    if (nkinds > KINDS_MAX) {
        snprintf(err, errlen, "%u kinds of records: at most %u travel between processes", nkinds, KINDS_MAX);
        return -1;
    }
    size_t budget = 0, widest = 0;
    for (uint32_t k = 0; k < nkinds; k++) {
        budget += kinds[k].budget;
        widest = kinds[k].bytes > widest ? kinds[k].bytes : widest;
    }
    if (widest > 1024) {
        snprintf(err, errlen, "a record of %zu bytes: at most 1024 travel between processes", widest);
        return -1;
    }
    if (sh->place > 0) {
        /* pieces small beside the budget the sorters would have had */
        sh->piece_cap = budget / 16 / (jobs ? jobs : 1);
        sh->piece_cap = sh->piece_cap < PIECE_MIN ? PIECE_MIN : sh->piece_cap > PIECE_MAX ? PIECE_MAX : sh->piece_cap;
        if (!(sh->pieces = calloc(jobs, sizeof *sh->pieces))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        sh->npieces = jobs;
        for (uint32_t j = 0; j < jobs; j++) {
            if (!(sh->pieces[j].buf = malloc(sh->piece_cap))) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            sh->pieces[j].buf[0] = 'R';
            sh->pieces[j].n = 1;
        }
        for (uint32_t k = 0; k < nkinds; k++)
            if (!(*kinds[k].sorter = wt_sorted_new_sink(kinds[k].bytes, sink, sh, k, err, errlen)))
                return -1;
        return 0;
    }
    if (!(sh->tail = calloc(sh->processes, sizeof *sh->tail))
        || !(sh->tail_len = calloc(sh->processes, sizeof *sh->tail_len))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < nkinds; k++)
        if (!(*kinds[k].sorter = wt_sorted_new(jobs + 1, kinds[k].bytes, kinds[k].cmp, kinds[k].budget, spill_dir,
                                               err, errlen)))
            return -1;
    for (uint32_t k = 0; k < nkinds; k++) {
        sh->sorter[k] = *kinds[k].sorter;
        sh->bytes[k] = kinds[k].bytes;
    }
    sh->nkinds = nkinds;
    sh->putter = jobs;
    /* without the thread, the streams are taken after this process's read */
    sh->receiving = pthread_create(&sh->receiver, NULL, receive_thread, sh) == 0;
    return 0;
}

/* ---------- the ends ---------- */

struct tail_head {
    uint64_t events, epochs_unpaired, nepochs, nops;
    uint32_t have_truth, nwins;
};

/* A worker's end: its epochs and counts, or that it failed. */
static int send_tail(int ok, const struct wt_records *rec, char *err, size_t errlen)
{
    struct tail_head h = { 0 };
    size_t len = 2;
    if (ok) {
        h = (struct tail_head){ rec->events, rec->epochs_unpaired, rec->nepochs, rec->nops,
                                (uint32_t)rec->have_truth, rec->nwins };
        len += sizeof h + h.nwins * sizeof *rec->win_size + h.nepochs * sizeof *rec->epochs
               + h.nops * sizeof *rec->ops;
    }
    uint8_t *buf = malloc(len);
    if (!buf) {
        snprintf(err, errlen, "out of memory for its epochs");
        uint8_t failed[2] = { 'E', 0 };
        pm_send_piece(failed, sizeof failed);
        return -1;
    }
    buf[0] = 'E';
    buf[1] = (uint8_t)(ok != 0);
    if (ok) {
        uint8_t *at = buf + 2;
        memcpy(at, &h, sizeof h);
        at += sizeof h;
        memcpy(at, rec->win_size, h.nwins * sizeof *rec->win_size);
        at += h.nwins * sizeof *rec->win_size;
        memcpy(at, rec->epochs, h.nepochs * sizeof *rec->epochs);
        at += h.nepochs * sizeof *rec->epochs;
        memcpy(at, rec->ops, h.nops * sizeof *rec->ops);
    }
    pm_send_piece(buf, len);
    free(buf);
    return 0;
}

/* Worker p's epochs and counts after rec's (their locations follow):
 * 0, 1 when the worker failed (it says why), or -1 with err. */
static int add_tail(struct wt_records *rec, uint32_t p, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct tail_head h;
    if (len < 2 || !buf[1])
        return 1;
    if (len < 2 + sizeof h) {
        snprintf(err, errlen, "process %u's epochs came damaged", p);
        return -1;
    }
    memcpy(&h, buf + 2, sizeof h);
    size_t need = 2 + sizeof h;
    if (h.nwins > UINT32_MAX / 2 || h.nepochs > SIZE_MAX / 4 / sizeof *rec->epochs
        || h.nops > SIZE_MAX / 4 / sizeof *rec->ops
        || (need += h.nwins * sizeof *rec->win_size + h.nepochs * sizeof *rec->epochs + h.nops * sizeof *rec->ops)
               != len) {
        snprintf(err, errlen, "process %u's epochs came damaged", p);
        return -1;
    }
    const uint8_t *at = buf + 2 + sizeof h;
    if (h.nwins > rec->nwins) {
        uint32_t *ws = realloc(rec->win_size, h.nwins * sizeof *ws);
        if (!ws)
            goto nomem;
        memset(ws + rec->nwins, 0, (h.nwins - rec->nwins) * sizeof *ws);
        rec->win_size = ws;
        rec->nwins = h.nwins;
    }
    for (uint32_t w = 0; w < h.nwins; w++) {
        uint32_t v;
        memcpy(&v, at + w * sizeof v, sizeof v);
        rec->win_size[w] += v;
    }
    at += h.nwins * sizeof *rec->win_size;
    if (rec->nepochs + h.nepochs > rec->capepochs) {
        struct wt_epoch *e = realloc(rec->epochs, (rec->nepochs + h.nepochs) * sizeof *e);
        if (!e)
            goto nomem;
        rec->epochs = e;
        rec->capepochs = rec->nepochs + h.nepochs;
    }
    if (rec->nops + h.nops > rec->capops) {
        struct wt_rma_op *o = realloc(rec->ops, (rec->nops + h.nops) * sizeof *o);
        if (!o)
            goto nomem;
        rec->ops = o;
        rec->capops = rec->nops + h.nops;
    }
    /* the worker's operations follow rec's: its epochs' first ones move by as many */
    for (size_t i = 0; i < h.nepochs; i++) {
        struct wt_epoch e;
        memcpy(&e, at + i * sizeof e, sizeof e);
        if (e.op_first > h.nops || e.nops > h.nops - e.op_first) {
            snprintf(err, errlen, "process %u's epochs came damaged", p);
            return -1;
        }
        e.op_first += rec->nops;
        rec->epochs[rec->nepochs + i] = e;
    }
    rec->nepochs += h.nepochs;
    at += h.nepochs * sizeof *rec->epochs;
    memcpy(rec->ops + rec->nops, at, h.nops * sizeof *rec->ops);
    rec->nops += h.nops;
    rec->events += h.events;
    rec->epochs_unpaired += h.epochs_unpaired;
    rec->have_truth |= h.have_truth != 0;
    return 0;
nomem:
    snprintf(err, errlen, "out of memory for the workers' epochs");
    return -1;
}

int wt_share_end(struct wt_share *sh, int ok, struct wt_records *rec, char *err, size_t errlen)
{
    if (sh->place > 0) {
        if (send_tail(ok, rec, err, errlen) != 0)
            ok = 0;
        return agree(sh, ok) ? 0 : -1;
    }
    if (!sh->tail && (!(sh->tail = calloc(sh->processes, sizeof *sh->tail))
                      || !(sh->tail_len = calloc(sh->processes, sizeof *sh->tail_len)))) {
        /* nowhere to keep the workers' ends: only the job's end is left */
        fprintf(stderr, "synctrace waits: out of memory\n");
        pm_abort();
    }
    if (sh->receiving)
        pthread_join(sh->receiver, NULL);
    else if (!sh->received)
        receive_all(sh);
    sh->receiving = 0;
    if (ok && *sh->recv_err) {
        snprintf(err, errlen, "%s", sh->recv_err);
        ok = 0;
    }
    /* in place order: the shares are contiguous, so in location order */
    for (uint32_t p = 1; ok && p < sh->processes; p++) {
        int r = add_tail(rec, p, sh->tail[p], sh->tail_len[p], err, errlen);
        if (r < 0)
            ok = 0;
        if (r > 0)
            break;            /* the agreement fails: the worker says why */
    }
    return agree(sh, ok) ? 0 : -1;
}
