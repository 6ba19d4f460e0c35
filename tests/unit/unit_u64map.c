/* unit_u64map.c — the in-flight table (tools/util/u64map.h) against a
 * brute-force model: random puts, overwrites, lookups and removals, on
 * dense keys (message numbers) and on keys that collide in their low bits,
 * so that deletion's backward shift runs through long probe sequences. */
#include "tap.h"
#include "u64map.h"

#define KEYS 4000
#define STEPS 600000

static uint64_t rng = 0x5eed;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random steps on keys key(0 .. KEYS); returns the mismatches. */
static long run(uint64_t (*key)(uint32_t), size_t *largest)
{
    static int has[KEYS];
    static uint64_t val[KEYS];
    struct u64map m = { 0 };
    long bad = 0;
    for (uint32_t k = 0; k < KEYS; k++)
        has[k] = 0;
    for (long s = 0; s < STEPS; s++) {
        uint32_t k = (uint32_t)(rnd() % KEYS);
        uint64_t v, nv = rnd();
        switch (rnd() % 3) {
        case 0:
            if (u64map_put(&m, key(k), nv) != 0)
                bad++;
            has[k] = 1;
            val[k] = nv;
            break;
        case 1:
            if (u64map_remove(&m, key(k), &v) != has[k] || (has[k] && v != val[k]))
                bad++;
            has[k] = 0;
            break;
        default:
            if (u64map_get(&m, key(k), &v) != has[k] || (has[k] && v != val[k]))
                bad++;
        }
        if (m.n > *largest)
            *largest = m.n;
    }
    size_t n = 0;
    for (uint32_t k = 0; k < KEYS; k++) {
        uint64_t v;
        n += has[k];
        bad += u64map_get(&m, key(k), &v) != has[k] || (has[k] && v != val[k]);
    }
    bad += n != m.n;
    u64map_free(&m);
    return bad;
}

static uint64_t dense(uint32_t k)
{
    return k;
}

static uint64_t colliding(uint32_t k)
{
    return (uint64_t)k << 40;   /* the same low bits: only the hash spreads them */
}

int main(void)
{
    size_t largest = 0;
    long bad = run(dense, &largest);
    ok(bad == 0, "dense keys: %ld steps, %ld mismatches with the model (at most %zu held)", (long)STEPS, bad, largest);
    largest = 0;
    bad = run(colliding, &largest);
    ok(bad == 0, "keys equal in their low 40 bits: %ld mismatches (at most %zu held)", bad, largest);
    struct u64map m = { 0 };
    uint64_t v = 7;
    ok(!u64map_get(&m, 1, &v) && !u64map_remove(&m, 1, &v) && v == 7 && m.n == 0,
       "an empty map: nothing found, nothing removed, nothing written");
    u64map_free(&m);
    return tap_finish();
}
