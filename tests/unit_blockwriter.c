/* unit_blockwriter.c — blocks written by the writer's thread: the same
 * file bytes and the same chained sums as writing them in place, several
 * streams interleaved; memory bounded while blocks are under way; a failed
 * write reported once, on the caller's side, and nothing after it lost
 * silently. */
#include "tap.h"
#include "blockwriter.h"

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

#define STREAMS 3
#define BLOCKS 300

int main(void)
{
    char path[] = "/tmp/unit_blockwriter.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    unlink(path);
    static unsigned char want[STREAMS][BLOCKS][BLOCK];
    size_t len[STREAMS][BLOCKS];
    uint64_t want_sum[STREAMS], got_sum[STREAMS], base[STREAMS];
    for (int s = 0; s < STREAMS; s++) {
        want_sum[s] = got_sum[s] = 0x1234 + (uint64_t)s;
        base[s] = (uint64_t)s * BLOCKS * BLOCK;
        for (int k = 0; k < BLOCKS; k++) {
            len[s][k] = k == BLOCKS - 1 ? 1 + rnd() % BLOCK : BLOCK;   /* the last one partial */
            for (size_t j = 0; j < len[s][k]; j++)
                want[s][k][j] = (unsigned char)rnd();
            want_sum[s] = toy_hash(want_sum[s], want[s][k], len[s][k]);
        }
    }

    /* streams interleaved at random, each holding one block at a time */
    struct bw_writer *w = bw_new(BLOCK, 4, toy_hash);
    int err = 0, bad = !w;
    int next[STREAMS] = { 0 };
    void *held[STREAMS] = { 0 };
    int left = STREAMS * BLOCKS;
    while (w && left) {
        int s = (int)(rnd() % STREAMS);
        if (next[s] == BLOCKS)
            continue;
        if (!held[s] && !(held[s] = bw_buffer(w))) {
            bad = 1;
            break;
        }
        memcpy(held[s], want[s][next[s]], len[s][next[s]]);
        bad |= bw_submit(w, fd, base[s] + (uint64_t)next[s] * BLOCK, held[s], len[s][next[s]], &got_sum[s], &err);
        held[s] = NULL;
        next[s]++;
        left--;
    }
    bad |= !w || bw_drain(w, &err) != 0;
    int same_sums = 1;
    for (int s = 0; s < STREAMS; s++)
        same_sums &= got_sum[s] == want_sum[s];
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
    int got = 1;
    for (int k = 0; k < 8; k++)
        got &= (many[k] = bw_buffer(w)) != NULL;
    for (int k = 0; k < 8; k++)
        bw_give_back(w, many[k]);
    ok(got, "eight blocks held at once with none under way");
    bw_free(w);

    /* a write that fails: reported once, as errno, on the caller's side;
     * later blocks are not written, and drain says so too */
    int ro = open("/dev/null", O_RDONLY);
    w = bw_new(BLOCK, 2, toy_hash);
    err = 0;
    uint64_t sum = 7;
    int rc1 = w ? bw_submit(w, ro, 0, memset(bw_buffer(w), 1, BLOCK), BLOCK, &sum, &err) : -1;
    int rcd = w ? bw_drain(w, &err) : 0;
    int first = err;
    int rc2 = w ? bw_submit(w, ro, BLOCK, memset(bw_buffer(w), 2, BLOCK), BLOCK, &sum, &err) : 0;
    ok(w && rc1 == 0 && rcd == -1 && first == EBADF && rc2 == -1 && err == EBADF && sum == 7,
       "a failed write: drain -1 with EBADF (%d), later submits -1, the sum untouched", first);
    bw_free(w);
    close(ro);
    close(fd);
    return tap_finish();
}
