/* TAP unit test for the membership codec (format/members.c): the
 * runs a raw archive's communicators' world ranks are written as, beside
 * the archive. Known lists encode to their expected text (MPI_COMM_WORLD
 * one range, a split of evens one strided range, a reversed order a
 * negative step, members of another job (outside sets) and of an unknown
 * world, arbitrary sets as runs);
 * seeded random lists of every shape round-trip; and corrupt or truncated
 * runs are refused with a reason, never read past their end nor turned
 * into a member outside the world. */
#include <config.h>
#include "members.h"
#include "rawformat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define U OTF2_UNDEFINED_UINT64

/* The runs of m, as a malloc'd string (NULL: the encoder failed). */
static char *encoded(uint32_t n, const uint64_t *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = rf_runs_encode(f, n, m);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Encode to `want`, and decode back to the same members. */
static void known(const char *what, uint32_t n, const uint64_t *m, uint64_t world, const char *want)
{
    char *s = encoded(n, m);
    uint64_t *back = malloc(sizeof *back * (n ? n : 1));
    char problem[160] = "";
    int same = s && back && rf_runs_decode(s, NULL, n, world, back, problem, sizeof problem) == 0
               && (n == 0 || memcmp(back, m, sizeof *m * n) == 0);
    ok(s && strcmp(s, want) == 0 && same, "%s: '%s' (want '%s'), decoded back%s%s", what, s ? s : "(failed)", want,
       problem[0] ? ": " : "", problem);
    free(s);
    free(back);
}

/* Decoding `s` as n members of a world of `world` must fail with `want`
 * in the problem, writing no member past n. */
static void refused(const char *what, const char *s, uint32_t n, uint64_t world, const char *want)
{
    uint64_t out[9];
    for (int i = 0; i < 9; i++)
        out[i] = 0xabad1deaULL;
    char problem[160] = "";
    /* a copy without its NUL: the decoder must stop at `end` */
    size_t len = strlen(s);
    char *copy = malloc(len ? len : 1);
    if (copy)
        memcpy(copy, s, len);
    int rc = copy ? rf_runs_decode(copy, copy + len, n, world, out, problem, sizeof problem) : 0;
    int intact = 1;
    for (uint32_t i = n; i < 9; i++)
        intact &= out[i] == 0xabad1deaULL;
    ok(rc == -1 && strstr(problem, want) && intact, "%s: '%s' refused (%s)", what, s, problem);
    free(copy);
}

static uint64_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

int main(void)
{
    enum { P = 4000 };
    static uint64_t m[P];
    for (uint32_t i = 0; i < P; i++)
        m[i] = i;
    known("MPI_COMM_WORLD of 4000", P, m, P, "0:4000");
    for (uint32_t i = 0; i < P / 2; i++)
        m[i] = 2 * i;
    known("a split of the even ranks", P / 2, m, P, "0:2000:2");
    for (uint32_t i = 0; i < P / 2; i++)
        m[i] = 2 * i + 1;
    known("a split of the odd ranks", P / 2, m, P, "1:2000:2");
    for (uint32_t i = 0; i < 10; i++)
        m[i] = 9 - i;
    known("a split with reversed keys", 10, m, 10, "9:10:-1");
    known("one member", 1, (const uint64_t[]){ 7 }, 8, "7");
    known("no member (an empty remote group)", 0, NULL, 8, "-");
    known("two consecutive ranks", 2, (const uint64_t[]){ 4, 5 }, 8, "4:2");
    known("two ranks apart", 2, (const uint64_t[]){ 4, 9 }, 10, "4,9");
    known("an arbitrary set", 7, (const uint64_t[]){ 3, 0, 5, 6, 7, 1, 12 }, 13, "3,0,5:3,1,12");
    known("blocks of a 2-D grid's column", 6, (const uint64_t[]){ 0, 1, 2, 10, 11, 12 }, 13, "0:3,10:3");
    known("another world's members (MPI_Comm_spawn)", 5, (const uint64_t[]){ U, U, U, 0, 1 }, 2, "?:3,0:2");
    known("one member of another world", 3, (const uint64_t[]){ 2, U, 3 }, 4, "2,?,3");
    known("repeated in-neighbours (a multigraph)", 4, (const uint64_t[]){ 5, 5, 5, 1 }, 6, "5:3:0,1");
#define O RF_OUTSIDE_MEMBER
    known("a spawned job's 4 processes (outside set 0)", 4, (const uint64_t[]){ O(0, 0), O(0, 1), O(0, 2), O(0, 3) }, 2,
          "o0.0:4");
    known("a merged intercommunicator: parents, then children", 5,
          (const uint64_t[]){ 0, 1, O(3, 0), O(3, 1), O(3, 2) }, 2, "0:2,o3.0:3");
    known("outside sets side by side, a run does not cross them", 4, (const uint64_t[]){ O(1, 4), O(2, 5), O(2, 6), O(65534, 7) },
          1, "o1.4,o2.5:2,o65534.7");
    known("an outside set's highest index, strided down", 3, (const uint64_t[]){ O(7, 4294967295u), O(7, 4294967293u), O(7, 4294967291u) },
          1, "o7.4294967295:3:-2");

    /* seeded random lists of every shape: runs, strides, sets, gaps of
     * another world's members, reversed runs */
    uint64_t state = 42;
    int roundtrips = 1;
    uint64_t *back = malloc(sizeof *back * P);
    for (int t = 0; t < 500 && back; t++) {
        uint32_t n = (uint32_t)(lcg(&state) % 300);
        uint64_t world = 1 + lcg(&state) % 5000;
        for (uint32_t i = 0; i < n;) {
            uint64_t kind = lcg(&state) % 4, len = 1 + lcg(&state) % 20, first = lcg(&state) % world;
            int64_t step = (int64_t)(lcg(&state) % 7) - 3;
            for (uint64_t k = 0; k < len && i < n; k++, i++) {
                int64_t v = (int64_t)first + (int64_t)k * step;
                uint64_t rank = kind == 0 ? U : kind == 1 ? lcg(&state) % world : v >= 0 && (uint64_t)v < world ? (uint64_t)v : first;
                m[i] = kind >= 2 && first % 3 == 0 ? O((uint32_t)(first % 5), (uint32_t)rank) : rank;   /* an outside set's */
            }
        }
        char *s = encoded(n, m);
        char problem[160] = "";
        int same = s && rf_runs_decode(s, NULL, n, world, back, problem, sizeof problem) == 0
                   && (n == 0 || memcmp(back, m, sizeof *m * n) == 0);
        if (!same && roundtrips)
            diag("round trip %d failed: %s (%s)", t, s ? s : "(encoder failed)", problem);
        roundtrips &= same;
        free(s);
    }
    ok(back && roundtrips, "500 seeded random member lists of every shape round-trip");
    free(back);

    refused("empty text", "", 0, 8, "malformed");
    refused("no member where some are announced", "-", 2, 8, "announced");
    refused("fewer members than announced", "0:3", 4, 8, "3 members where 4");
    refused("more members than announced", "0:5", 4, 8, "more members than the 4");
    refused("a run past the announced count, in a second run", "0,1:4", 4, 8, "more members");
    refused("a rank outside the world", "8", 1, 8, "outside the world");
    refused("a run that leaves the world upwards", "6:3", 3, 8, "leaves the world");
    refused("a run that leaves the world below 0", "1:3:-1", 3, 8, "leaves the world");
    refused("a stride past the world", "0:2:9", 2, 8, "malformed");
    refused("a zero count", "0:0", 0, 8, "malformed");
    refused("a trailing comma", "1,", 1, 8, "malformed");
    refused("a leading comma", ",1", 1, 8, "malformed");
    refused("two commas", "1,,2", 2, 8, "malformed");
    refused("a letter", "1,x", 2, 8, "malformed");
    refused("a sign on a rank", "-1", 1, 8, "malformed");
    refused("an empty count", "1:", 1, 8, "malformed");
    refused("an empty stride", "1:2:", 2, 8, "malformed");
    refused("a stride for another world's members", "?:2:1", 2, 8, "malformed");
    refused("a number of 20 digits", "18446744073709551615", 1, 8, "malformed");
    refused("a count that would wrap", "0:4294967297", 1, 8, "more members");
    refused("cut short inside a run", "0:2:", 2, 8, "malformed");
    refused("a space inside", "0, 1", 2, 8, "malformed");
    refused("an outside set past the largest", "o65535.1", 1, 8, "malformed");
    refused("the one value that means an unknown member", "o65535.4294967295", 1, 8, "malformed");
    refused("an outside index past 2^32", "o1.4294967296", 1, 8, "malformed");
    refused("an outside run past 2^32", "o1.4294967295:2", 2, 8, "leaves outside set 1");
    refused("an outside run below 0", "o1.1:3:-1", 3, 8, "leaves outside set 1");
    refused("an outside set without its dot", "o1", 1, 8, "malformed");
    refused("an outside set without its number", "o.1", 1, 8, "malformed");
    refused("an outside set's unknown member", "o1.?", 1, 8, "malformed");
    return tap_finish();
}
