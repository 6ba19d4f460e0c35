/* unit_msgstream.c — the matched messages set aside on disk
 * (tools/match/msgstream.c): every message comes back in order, at block
 * edges too, to several readers interleaved; held in memory they read the
 * same way; mg_msgs_load copies them; a file cut short and a write over
 * the file-size limit each give a one-line error that sticks, never a
 * message that was not written. */
#include <config.h>
#include "msgstream.h"
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static struct mg_message message(size_t i)
{
    struct mg_message m = { { (uint32_t)(i % 7), i * 3, i }, { (uint32_t)(i % 5), UINT64_MAX - i, i + 1 },
                            (uint32_t)(i % 3), (uint32_t)i, (uint64_t)i << 20 };
    return m;
}

static int same(const struct mg_message *a, const struct mg_message *b)
{
    return a->send.rank == b->send.rank && a->send.index == b->send.index && a->recv.rank == b->recv.rank
           && a->recv.index == b->recv.index && a->comm == b->comm && a->tag == b->tag && a->bytes == b->bytes;
}

/* n messages into a file (a result that holds none in memory). */
static int written(struct mg_result *r, size_t n, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!(r->message_file = ms_file_new("/tmp", err, errlen)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct mg_message m = message(i);
        if (ms_file_append(r->message_file, &m) != 0)
            return -1;
    }
    r->nmessages = n;
    return ms_file_flush(r->message_file);
}

/* Two readers taking turns (a, b, a, b, ...) see every message in order. */
static int read_twice(const struct mg_result *r)
{
    static struct mg_msg_reader a, b;
    mg_msgs_begin(r, &a);
    mg_msgs_begin(r, &b);
    size_t n = 0;
    for (;; n++) {
        const struct mg_message *x = mg_msgs_next(&a);
        struct mg_message want = message(n);
        if (!x)
            break;
        if (!same(x, &want) || a.index != n)
            return 0;
        const struct mg_message *y = mg_msgs_next(&b);
        if (!y || !same(y, &want) || b.index != n)
            return 0;
    }
    return n == r->nmessages && !mg_msgs_next(&b) && !mg_msgs_next(&a) && !mg_msgs_error(r);
}

static void round_trips(void)
{
    const size_t counts[] = { 0, 1, MG_MSG_READ_BLOCK - 1, MG_MSG_READ_BLOCK, MG_MSG_READ_BLOCK + 1, 1023, 1024,
                              1025, 100003 };
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        char err[600] = "";
        struct mg_result r;
        int w = written(&r, counts[k], err, sizeof err);
        ok(w == 0 && read_twice(&r) && ms_file_bytes(r.message_file) == counts[k] * sizeof(struct mg_message),
           "%zu messages through the file, read back by two readers in turn%s%s", counts[k], err[0] ? ": " : "",
           err);
        struct mg_message *all = mg_msgs_load(&r);
        int loaded = all != NULL;
        for (size_t i = 0; loaded && i < counts[k]; i++) {
            struct mg_message want = message(i);
            loaded = same(&all[i], &want);
        }
        ok(loaded, "%zu messages loaded into one array", counts[k]);
        free(all);
        mg_free(&r);
    }
}

static void held(void)
{
    struct mg_result r = { 0 };
    r.nmessages = 3000;
    r.messages = malloc(sizeof *r.messages * r.nmessages);
    for (size_t i = 0; r.messages && i < r.nmessages; i++)
        r.messages[i] = message(i);
    ok(r.messages && read_twice(&r), "messages held in memory read the same way");
    mg_free(&r);
}

/* A result that claims more messages than the file has: the readers stop
 * where it ends and the error says so, once for all. */
static void cut_short(void)
{
    char err[600] = "";
    struct mg_result r;
    int w = written(&r, 700, err, sizeof err);
    r.nmessages = 1000;
    struct mg_msg_reader it;
    mg_msgs_begin(&r, &it);
    size_t n = 0;
    while (mg_msgs_next(&it))
        n++;
    const char *why = mg_msgs_error(&r);
    ok(w == 0 && n == 512 && why && strstr(why, "cut short") && strstr(why, "/tmp"),
       "a file cut short: the reader stops at its last whole block (%zu read): %s", n, why ? why : "no error");
    mg_msgs_begin(&r, &it);
    ok(!mg_msgs_next(&it), "the error sticks: a new reader reads nothing");
    ok(!mg_msgs_load(&r), "nor is any array loaded");
    mg_free(&r);
}

/* A write over RLIMIT_FSIZE (SIGXFSZ ignored, as synctrace does): EFBIG. */
static void too_big(void)
{
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = { 64 * 1024, old.rlim_max };
    setrlimit(RLIMIT_FSIZE, &lim);
    char err[600] = "";
    struct mg_result r;
    int w = written(&r, 10000, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    const char *why = ms_file_error(r.message_file);
    ok(w != 0 && strstr(why, "write") && strstr(why, "/tmp"), "a write beyond the file-size limit fails: %s", why);
    struct mg_message m = message(0);
    ok(ms_file_append(r.message_file, &m) != 0 && ms_file_flush(r.message_file) != 0, "and later writes fail too");
    mg_free(&r);
}

int main(void)
{
    round_trips();
    held();
    cut_short();
    too_big();
    return tap_finish();
}
