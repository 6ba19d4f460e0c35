/* causal_encode.c — the index file's sections written in order
 * (struct ostream, through blockqueue.h's thread) and the full vectors'
 * chunks encoded into them: a difference to the rank's key chunk when
 * that is narrower, else a new key (causal.h). */
#include "causal_builder.h"
#include "fsutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A block of the stream, on the queue's thread: written at its offset,
 * then hashed into the stream's sum. */
static int write_job(void *arg, uint64_t off, const void *buf, size_t n)
{
    struct ostream *o = arg;
    if (st_pwrite_all(o->fd, buf, n, off) != 0)
        return errno;
    o->sum = ci_hash_bytes(o->sum, buf, n);
    return 0;
}

/* The block so far goes to the queue (o->buf with it; cb_os_put takes
 * another). */
static int os_flush(struct ostream *o)
{
    if (o->fd < 0 || !o->n)
        return 0;
    int rc = bq_submit(o->bq, o->buf, o->n, write_job, o, o->base + o->flushed, o->err);
    o->buf = NULL;
    o->flushed += o->n;
    o->n = 0;
    return rc;
}

/* Everything put is written and o->sum final. */
int cb_os_done(struct ostream *o)
{
    if (os_flush(o) != 0)
        return -1;
    return o->fd >= 0 ? bq_drain(o->bq, o->err) : 0;
}

int cb_os_put(struct ostream *o, const void *p, size_t n)
{
    const char *src = p;
    if (n == 0)
        return 0;   /* nothing to copy, and o->buf may not exist yet */
    o->total += n;
    if (o->fd < 0) {
        if (o->n + n > o->cap) {
            size_t cap = o->cap ? o->cap * 2 : (size_t)1 << 16;
            while (cap < o->n + n)
                cap *= 2;
            uint8_t *nv = realloc(o->buf, cap);
            if (!nv)
                return -1;
            o->buf = nv;
            o->cap = cap;
        }
        memcpy(o->buf + o->n, src, n);
        o->n += n;
        return 0;
    }
    while (n) {
        if (!o->buf && !(o->buf = bq_buffer(o->bq)))
            return -1;
        size_t room = CI_HASH_BLOCK - o->n, k = n < room ? n : room;
        memcpy(o->buf + o->n, src, k);
        o->n += k;
        src += k;
        n -= k;
        if (o->n == CI_HASH_BLOCK && os_flush(o))
            return -1;
    }
    return 0;
}

/* A stream into fd at base, its blocks written through bq, or into
 * memory (fd < 0). */
void cb_os_open(struct ostream *o, int fd, uint64_t base, int *err, struct bq_queue *bq)
{
    memset(o, 0, sizeof *o);
    o->err = err;
    o->fd = fd;
    o->base = base;
    o->sum = CI_SUM_SEED;
    o->bq = bq;
}

/* The stream's block, if it holds one, back where it came from. */
void cb_os_release(struct ostream *o)
{
    if (o->fd >= 0)
        bq_give_back(o->bq, o->buf);
    else
        free(o->buf);
    o->buf = NULL;
}

/* The codes' and bytes' streams let go: through the writer's queue, which
 * ends once every block is written, or their memory. */
void cb_streams_free(struct builder *b)
{
    if (b->bq) {
        cb_os_release(&b->codes);
        cb_os_release(&b->bytes);
        bq_free(b->bq);
        b->bq = NULL;
    } else {
        free(b->codes.buf);
        free(b->bytes.buf);
    }
    b->codes.buf = b->bytes.buf = NULL;
}

static uint32_t width_code(uint32_t max)
{
    return max == 0 ? 0 : max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : 3;
}

/* The OR of x[0 .. n), whose highest bit is the maximum's (so the same
 * width code); with a key, the OR of x - key and whether any x lies below
 * its key. */
static uint32_t or_of(const uint32_t *x, uint32_t n)
{
    u32x4 o = { 0 };
    uint32_t j = 0, r = 0;
    for (; j + 4 <= n; j += 4)
        o |= load4(x + j);
    for (int k = 0; k < 4; k++)
        r |= o[k];
    for (; j < n; j++)
        r |= x[j];
    return r;
}

static uint32_t or_of_differences(const uint32_t *x, const uint32_t *key, uint32_t n, int *below)
{
    u32x4 o = { 0 }, lt = { 0 };
    uint32_t j = 0, r = 0, l = 0;
    for (; j + 4 <= n; j += 4) {
        u32x4 a = load4(x + j), k = load4(key + j);
        o |= a - k;
        lt |= (u32x4)(a < k);
    }
    for (int q = 0; q < 4; q++) {
        r |= o[q];
        l |= lt[q];
    }
    for (; j < n; j++) {
        r |= x[j] - key[j];
        l |= x[j] < key[j];
    }
    *below = l != 0;
    return r;
}

/* Write n values (x - base, base NULL: 0) at width code w, padded with
 * zeros to the chunk's 2^cshift columns (offsets follow from widths). */
static int emit(struct builder *b, const uint32_t *x, const uint32_t *base, uint32_t n, uint32_t w)
{
    if (w == 0)
        return 0;
    union {   /* chunks have at most 2^12 columns; values in native byte order */
        uint8_t u8[1 << 12];
        uint16_t u16[1 << 12];
        uint32_t u32[1 << 12];
    } buf;
    uint32_t cols = 1u << b->cshift, j;
    /* one loop per width and kind, each simple enough to vectorise */
    if (w == 1) {
        if (base)
            for (j = 0; j < n; j++)
                buf.u8[j] = (uint8_t)(x[j] - base[j]);
        else
            for (j = 0; j < n; j++)
                buf.u8[j] = (uint8_t)x[j];
        memset(buf.u8 + n, 0, cols - n);
    } else if (w == 2) {
        if (base)
            for (j = 0; j < n; j++)
                buf.u16[j] = (uint16_t)(x[j] - base[j]);
        else
            for (j = 0; j < n; j++)
                buf.u16[j] = (uint16_t)x[j];
        memset(buf.u16 + n, 0, 2 * (size_t)(cols - n));
    } else {
        if (base)
            for (j = 0; j < n; j++)
                buf.u32[j] = x[j] - base[j];
        else
            memcpy(buf.u32, x, 4 * (size_t)n);
        memset(buf.u32 + n, 0, 4 * (size_t)(cols - n));
    }
    return cb_os_put(&b->bytes, &buf, (size_t)cols * CI_W_BYTES(w));
}

/* Append a chunk's code to the current line; a full line goes out. */
static int put_code(struct builder *b, uint32_t code)
{
    b->line.code[b->inline_n++] = code;
    if (b->inline_n < CI_LINE_CODES)
        return 0;
    b->inline_n = 0;
    return cb_os_put(&b->codes, &b->line, sizeof b->line);
}

/* A code another pass thread made (raw_codes), put in place in strip
 * order: its line's base is where its chunk's bytes go, *at, which moves
 * past them (the bytes follow separately, in the same order). */
int cb_place_code(struct builder *b, uint32_t code, uint64_t *at)
{
    if (b->inline_n == 0)
        b->line.base = *at;
    *at += (uint64_t)CI_W_BYTES(CI_CODE_W(code)) << b->cshift;
    return put_code(b, code);
}

/* The last line, its unused codes zero. */
int cb_flush_line(struct builder *b)
{
    if (!b->inline_n)
        return 0;
    while (b->inline_n < CI_LINE_CODES)
        b->line.code[b->inline_n++] = 0;
    b->inline_n = 0;
    return cb_os_put(&b->codes, &b->line, sizeof b->line);
}

/* Chunk c of rank r's full vector v (window-relative), the next one:
 * a difference to the rank's key chunk of those columns when that takes
 * fewer bytes a column, else a new key chunk. */
int cb_encode_chunk(struct builder *b, uint32_t r, uint32_t c, const uint32_t *v)
{
    uint32_t c0 = c << b->cshift, n = b->N - c0 < (1u << b->cshift) ? b->N - c0 : 1u << b->cshift;
    const uint32_t *x = v + (c0 - b->lo);
    uint32_t *key = b->key + (size_t)r * b->Wmax + (c0 - b->lo);
    uint64_t *kt = &b->keytop[(size_t)r * b->cpw + ((c0 - b->lo) >> b->cshift)];
    uint64_t dist = *kt == NO_KEY ? 0 : (b->bytes.total - (*kt >> 2)) >> b->cshift;
    int down = *kt == NO_KEY || dist > CI_DIST_MAX || (*kt & 3) == 0;   /* (a zero key: absolute values are as small) */
    uint32_t ordiff = 0;
    if (!down) {
        int below;
        ordiff = or_of_differences(x, key, n, &below);
        down = below;   /* cannot happen (V grows along a rank): a key then */
    }
    uint32_t wa = width_code(or_of(x, n)), wd = width_code(ordiff), code;
    if (b->inline_n == 0 && !b->raw_codes)
        b->line.base = b->bytes.total;   /* the line's first chunk starts here */
    if (!down && CI_W_BYTES(wd) < CI_W_BYTES(wa)) {
        b->st->chunks[wd]++;
        code = CI_CODE(wd, (uint32_t)(*kt & 3), dist);
        if (emit(b, x, key, n, wd))
            return -1;
    } else {
        b->st->chunks[wa]++;
        b->st->key_chunks++;
        memcpy(key, x, sizeof *key * n);
        *kt = b->bytes.total << 2 | wa;
        code = CI_CODE(wa, 0, 0);
        if (emit(b, x, NULL, n, wa))
            return -1;
    }
    return b->raw_codes ? cb_os_put(&b->codes, &code, sizeof code) : put_code(b, code);
}

/* Rank r's full vector v (the window's columns), chunk after chunk. */
static int encode_now(struct builder *b, uint32_t r, const uint32_t *v)
{
    uint32_t c1 = (b->lo + b->W + (1u << b->cshift) - 1) >> b->cshift;
    for (uint32_t c = b->lo >> b->cshift; c < c1; c++)
        if (cb_encode_chunk(b, r, c, v))
            return -1;
    return 0;
}

/* ----------------------------------------------------------- the encoder */

/* A full vector in a batch: its rank, then the window's W values. */
static size_t batch_entry(const struct builder *b)
{
    return 4 * ((size_t)b->W + 1);
}

/* A batch, on the encoder's thread: every vector in order. */
static int encode_job(void *arg, uint64_t tag, const void *buf, size_t n)
{
    struct builder *b = arg;
    (void)tag;
    const uint32_t *p = buf;
    for (size_t at = 0, k = batch_entry(b) / 4; at + k <= n / 4; at += k)
        if (encode_now(b, p[at], p + at + 1) != 0)
            return b->write_errno ? b->write_errno : ENOMEM;
    return 0;
}

/* The batch so far to the encoder. */
static int encoder_flush(struct builder *b)
{
    if (!b->enc_block || !b->enc_n)
        return 0;
    int rc = bq_submit(b->enc, b->enc_block, b->enc_n, encode_job, b, 0, &b->enc_errno);
    b->enc_block = NULL;
    b->enc_n = 0;
    return rc;
}

int cb_encode_full(struct builder *b, uint32_t r, const uint32_t *v)
{
    if (!b->enc)
        return encode_now(b, r, v);
    size_t need = batch_entry(b);
    if (b->enc_block && b->enc_n + need > b->enc_size && encoder_flush(b) != 0)
        return -1;
    if (!b->enc_block && !(b->enc_block = bq_buffer(b->enc))) {
        b->oom = 1;
        return -1;
    }
    memcpy(b->enc_block + b->enc_n, &r, 4);
    memcpy(b->enc_block + b->enc_n + 4, v, 4 * (size_t)b->W);
    b->enc_n += need;
    return 0;
}

/* An encoder for the builder's window passes: blocks of at least 1 MB
 * and one vector, 4 of them. 0, or -1 (out of memory: the pass encodes
 * in line). */
int cb_encoder_start(struct builder *b)
{
    b->enc_size = 4 * ((size_t)b->Wmax + 1);
    if (b->enc_size < ((size_t)1 << 20))
        b->enc_size = (size_t)1 << 20;
    b->enc = bq_new(b->enc_size, 4);
    return b->enc ? 0 : -1;
}

/* The pass is over: every vector encoded (the key chunks, streams and
 * line are the builder's again). 0, or -1. */
int cb_encoder_drain(struct builder *b)
{
    if (!b->enc)
        return 0;
    int rc = encoder_flush(b);
    if (bq_drain(b->enc, &b->enc_errno) != 0 || rc != 0) {
        if (!b->write_errno && b->enc_errno != ENOMEM)
            b->write_errno = b->enc_errno;
        b->oom = !b->write_errno;
        return -1;
    }
    return 0;
}

/* Waits for the encoder (a failed pass may leave batches), then frees it. */
void cb_encoder_free(struct builder *b)
{
    if (!b->enc)
        return;
    bq_drain(b->enc, NULL);
    bq_give_back(b->enc, b->enc_block);
    b->enc_block = NULL;
    bq_free(b->enc);
    b->enc = NULL;
}
