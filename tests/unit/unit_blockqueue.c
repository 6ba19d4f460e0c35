/* unit_blockqueue.c — blocks written by the queue's thread, as the causal
 * index's file is: the same file bytes and the same chained sums as
 * writing them in place, several streams interleaved; memory bounded
 * while blocks are under way; a failed write reported once, on the
 * caller's side, and no job run after it. */
#include "tap.h"
#include "blockqueue.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096

/* A chained hash whose result depends on the block boundaries, as the
 * causal index's does (so blocks out of order or merged would show). */
static uint64_t toy_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x100000001B3ull;
    return (h ^ n) * 0x9E3779B97F4A7C15ull;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A stream of the test: its file and its chained sum. */
struct stream {
    int fd;
    uint64_t sum;
};

static int write_job(void *arg, uint64_t off, const void *buf, size_t n)
{
    struct stream *st = arg;
    if (st_pwrite_all(st->fd, buf, n, off) != 0)
        return errno;
    st->sum = toy_hash(st->sum, buf, n);
    return 0;
}

#define STREAMS 3
#define BLOCKS 300

int main(void)
{
    char path[] = "/tmp/unit_blockqueue.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    unlink(path);
    static unsigned char want[STREAMS][BLOCKS][BLOCK];
    size_t len[STREAMS][BLOCKS];
    uint64_t want_sum[STREAMS], base[STREAMS];
    struct stream got[STREAMS];
    for (int s = 0; s < STREAMS; s++) {
        want_sum[s] = got[s].sum = 0x1234 + (uint64_t)s;
        got[s].fd = fd;
        base[s] = (uint64_t)s * BLOCKS * BLOCK;
        for (int k = 0; k < BLOCKS; k++) {
            len[s][k] = k == BLOCKS - 1 ? 1 + rnd() % BLOCK : BLOCK;   /* the last one partial */
            for (size_t j = 0; j < len[s][k]; j++)
                want[s][k][j] = (unsigned char)rnd();
            want_sum[s] = toy_hash(want_sum[s], want[s][k], len[s][k]);
        }
    }

    /* streams interleaved at random, each holding one block at a time */
    struct bq_queue *w = bq_new(BLOCK, 4);
    int err = 0, bad = !w;
    int next[STREAMS] = { 0 };
    void *held[STREAMS] = { 0 };
    int left = STREAMS * BLOCKS;
    while (w && left) {
        int s = (int)(rnd() % STREAMS);
        if (next[s] == BLOCKS)
            continue;
        if (!held[s] && !(held[s] = bq_buffer(w))) {
            bad = 1;
            break;
        }
        memcpy(held[s], want[s][next[s]], len[s][next[s]]);
        bad |= bq_submit(w, held[s], len[s][next[s]], write_job, &got[s], base[s] + (uint64_t)next[s] * BLOCK, &err);
        held[s] = NULL;
        next[s]++;
        left--;
    }
    bad |= !w || bq_drain(w, &err) != 0;
    int same_sums = 1;
    for (int s = 0; s < STREAMS; s++)
        same_sums &= got[s].sum == want_sum[s];
    ok(!bad && !err && same_sums, "three streams interleaved, %d blocks: every sum as written in place (err %d)",
       STREAMS * BLOCKS, err);
    int same_bytes = 1;
    static unsigned char back[BLOCK];
    for (int s = 0; s < STREAMS; s++)
        for (int k = 0; k < BLOCKS; k++)
            same_bytes &= pread(fd, back, len[s][k], (off_t)(base[s] + (uint64_t)k * BLOCK)) == (ssize_t)len[s][k]
                          && memcmp(back, want[s][k], len[s][k]) == 0;
    ok(same_bytes, "every block at its offset, byte for byte");

    /* a block taken and not handed over goes back; several held at once
     * while none is under way are made (no wait for one that never comes) */
    void *many[8];
    int got_all = 1;
    for (int k = 0; k < 8; k++)
        got_all &= (many[k] = bq_buffer(w)) != NULL;
    for (int k = 0; k < 8; k++)
        bq_give_back(w, many[k]);
    ok(got_all, "eight blocks held at once with none under way");
    bq_free(w);

    /* a write that fails: reported once, as errno, on the caller's side;
     * later blocks are not written, and drain says so too */
    int ro = open("/dev/null", O_RDONLY);
    w = bq_new(BLOCK, 2);
    err = 0;
    struct stream bad_stream = { ro, 7 };
    int rc1 = w ? bq_submit(w, memset(bq_buffer(w), 1, BLOCK), BLOCK, write_job, &bad_stream, 0, &err) : -1;
    int rcd = w ? bq_drain(w, &err) : 0;
    int first = err;
    int rc2 = w ? bq_submit(w, memset(bq_buffer(w), 2, BLOCK), BLOCK, write_job, &bad_stream, BLOCK, &err) : 0;
    ok(w && rc1 == 0 && rcd == -1 && first == EBADF && rc2 == -1 && err == EBADF && bad_stream.sum == 7,
       "a failed write: drain -1 with EBADF (%d), later submits -1, the sum untouched", first);
    bq_free(w);
    close(ro);
    close(fd);
    return tap_finish();
}
