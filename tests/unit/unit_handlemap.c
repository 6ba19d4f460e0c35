/* unit_handlemap.c — the handle map against a brute-force model: random
 * inserts, overwrites, lookups and removals (with the tombstones they leave). */
#include "handlemap.h"

#include <stdio.h>
#include <stdlib.h>

#define KEYS 3000
#define STEPS 400000

static int failures, n;

static void check(int cond, const char *what)
{
    printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
    if (!cond)
        failures++;
}

int main(void)
{
    printf("1..5\n");
    struct st_handlemap m = { 0 };
    void *model[KEYS] = { 0 };
    uintptr_t keys[KEYS];
    srand(12345);
    for (int i = 0; i < KEYS; i++)   /* pointer-like keys, and 0 (MPI_REQUEST_NULL elsewhere) */
        keys[i] = i == 0 ? 0 : (uintptr_t)0x7f0000000000ULL + (uintptr_t)i * 48;
    int get_bad = 0, remove_bad = 0, put_bad = 0;
    for (int s = 0; s < STEPS; s++) {
        int k = rand() % KEYS, op = rand() % 3;
        void *v = (void *)(uintptr_t)(s + 1);
        if (op == 0) {
            put_bad += st_handlemap_put(&m, keys[k], v) != 0;
            model[k] = v;
        } else if (op == 1) {
            remove_bad += st_handlemap_remove(&m, keys[k]) != model[k];
            model[k] = NULL;
        } else {
            get_bad += st_handlemap_get(&m, keys[k]) != model[k];
        }
    }
    size_t live = 0;
    int final_bad = 0;
    for (int i = 0; i < KEYS; i++) {
        live += model[i] != NULL;
        final_bad += st_handlemap_get(&m, keys[i]) != model[i];
    }
    check(put_bad == 0, "every insert succeeds");
    check(get_bad == 0, "lookups agree with the model");
    check(remove_bad == 0, "removals return what the model holds");
    check(final_bad == 0 && m.live == live, "final contents and live count agree");
    check(m.cap <= 4 * 4 * (live + 1) + 64, "tombstones do not make the table grow without bound");
    st_handlemap_clear(&m);
    return failures ? 1 : 0;
}
