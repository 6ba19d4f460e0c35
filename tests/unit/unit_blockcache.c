/* unit_blockcache.c — blocks of a file through slots (tools/util/
 * blockcache.h) against the file itself: random blocks into few slots
 * (every miss read again, every hit the slot's own block), a read cut
 * short by the file's end failing and the failure sticking, and blocks
 * still held being given after it. */
#include "tap.h"
#include "blockcache.h"
#include "fsutil.h"

#include <string.h>
#include <unistd.h>

#define BLOCK 64u
#define NVALUES 100000u

static uint64_t rng = 0xb10c;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    static uint64_t values[NVALUES];
    for (uint32_t i = 0; i < NVALUES; i++)
        values[i] = rnd();
    int fd = st_nameless_file(".", "blockcache-test");
    ok(fd >= 0 && st_pwrite_all(fd, values, sizeof values, 0) == 0, "a file of %u values", NVALUES);
    struct st_blockcache c;
    struct agg a = { 0 };
    check(&a, st_blockcache_init(&c, fd, BLOCK * sizeof(uint64_t), 7) == 0, "7 slots");
    uint64_t nblocks = (NVALUES + BLOCK - 1) / BLOCK;
    for (int step = 0; step < 200000; step++) {
        uint64_t b = rnd() % (step % 3 ? 20 : nblocks);   /* mostly a few blocks: hits and evictions */
        uint32_t slot = (uint32_t)(rnd() % 7);
        uint64_t n = NVALUES - b * BLOCK < BLOCK ? NVALUES - b * BLOCK : BLOCK;
        const uint64_t *v = st_blockcache_get(&c, slot, b, b * BLOCK * sizeof *v, n * sizeof *v);
        uint64_t k = rnd() % n;
        check(&a, v && v[k] == values[b * BLOCK + k], "block %llu in slot %u", (unsigned long long)b, slot);
    }
    report(&a, "random blocks into 7 slots give the file's values");

    struct agg f = { 0 };
    st_blockcache_forget(&c);   /* every slot empty: the next gets read */
    const uint64_t *held = st_blockcache_get(&c, 0, 3, 3 * BLOCK * 8, BLOCK * 8);
    check(&f, held && held[5] == values[3 * BLOCK + 5], "block 3 held in slot 0");
    check(&f, st_blockcache_get(&c, 1, 99999, (uint64_t)NVALUES * 8 - 8, 16) == NULL, "a read past the end fails");
    check(&f, !strcmp(st_blockcache_why(&c), "cut short"), "said: %s", st_blockcache_why(&c));
    check(&f, st_blockcache_get(&c, 2, 4, 4 * BLOCK * 8, BLOCK * 8) == NULL, "the failure sticks");
    held = st_blockcache_get(&c, 0, 3, 3 * BLOCK * 8, BLOCK * 8);
    check(&f, held && held[5] == values[3 * BLOCK + 5], "a block held before is still given");
    st_blockcache_free(&c);
    struct st_blockcache d;
    check(&f, st_blockcache_init(&d, fd, 8, 2) == 0 && st_blockcache_get(&d, 0, 0, 0, 16) == NULL,
          "a block larger than a slot is refused");
    st_blockcache_forget(&d);
    st_blockcache_free(&d);
    report(&f, "a failed read sticks; what was held stays");
    close(fd);
    return tap_finish();
}
