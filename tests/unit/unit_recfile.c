/* unit_recfile.c — a killed rank's records file read back
 * (format/recfile.c): records files built here, chunk by chunk, as
 * src/records.c lays them out, against what the recovery must make of them:
 * exactly the records after the event file's last whole chunk, in order,
 * each converted once (checked by the timestamps of the encoded events),
 * then the open polling run the current chunk keeps,
 * and every kind of damage (missing, out-of-order, damaged chunks and
 * records, a header that is not one) costs only the records from there on,
 * with its reason. */
#include <config.h>
#include "tap.h"
#include "recfile.h"
#include "recfile_read.h"
#include "reckinds.h"
#include "evtchunk.h"
#include "defs_write.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
#define CHUNK (16 * 1024)              /* a chunk of the file, bytes */
#define WORDS ((CHUNK - RF_RECCHUNK_WORDS_AT) / 8)
#define EVT_CHUNK (256 * 1024)
#define LOC 7

static char dir[] = "/tmp/unit_recfile.XXXXXX";
static char path[4200];

struct file {
    uint8_t *bytes;
    size_t nchunks;
};

static uint64_t *chunk_words(struct file *f, size_t k)
{
    return (uint64_t *)(f->bytes + PAGE + k * CHUNK + RF_RECCHUNK_WORDS_AT);
}

static struct rf_recchunk_head *chunk_head(struct file *f, size_t k)
{
    return (struct rf_recchunk_head *)(f->bytes + PAGE + k * CHUNK);
}

static void file_init(struct file *f, size_t nchunks)
{
    f->nchunks = nchunks;
    f->bytes = calloc(1, PAGE + nchunks * CHUNK);
    if (!f->bytes)
        abort();
    uint64_t page = PAGE, chunk = CHUNK;
    memcpy(f->bytes, RF_RECORDS_MAGIC, sizeof RF_RECORDS_MAGIC - 1);
    memcpy(f->bytes + RF_RECORDS_HEADER_AT, &page, 8);
    memcpy(f->bytes + RF_RECORDS_CHUNK_BYTES_AT, &chunk, 8);
}

/* Chunk k: location loc's seq-th, its records the Enters stamped t0, t0+1,
 * ... (n of them); `first` as the tracer sets it. Its base address is made
 * up, as the tracer's would be. */
static void chunk_put(struct file *f, size_t k, uint64_t loc, uint64_t seq, uint64_t first, uint64_t t0, uint32_t n)
{
    struct rf_recchunk_head *h = chunk_head(f, k);
    uint64_t *w = chunk_words(f, k);
    for (uint32_t i = 0; i < n; i++) {
        w[2 * i] = ST_REC_ENTER_KIND | (uint64_t)(i % 5) << 32;   /* region i % 5 */
        w[2 * i + 1] = t0 + i;
    }
    h->magic = RF_RECCHUNK_LIVE;
    h->location = loc;
    h->seq = seq;
    h->first = first;
    h->base = 0x7f0000000000ull + k * CHUNK;
    h->fill = h->base + 16ull * n;
}

static void file_write(const struct file *f)
{
    FILE *o = fopen(path, "wb");
    if (!o || fwrite(f->bytes, 1, PAGE + f->nchunks * CHUNK, o) != PAGE + f->nchunks * CHUNK || fclose(o) != 0)
        abort();
}

static _Atomic uint32_t source_ref[ST_REC_MAX_WORDS];

/* Replay location LOC after `in_file` events into a fresh event file; the
 * timestamps of the events it encodes into *ts (at most cap). Returns the
 * count the reader gave, -1 when the file did not open. */
static long replay(const struct file *f, uint64_t in_file, const char **why, uint64_t *ts, size_t cap, size_t *nts)
{
    file_write(f);
    struct rf_records r;
    char err[4400];
    if (rf_records_open(path, &r, err, sizeof err) != 0)
        return -1;
    char evt[4300];
    snprintf(evt, sizeof evt, "%s/out.evt", dir);
    unlink(evt);
    struct rf_attr_layout l;
    rf_attr_layout(&l, 0);
    const struct st_convert_refs refs = { &l, source_ref };
    uint64_t counted = rf_records_replay(&r, LOC, in_file, 0, NULL, NULL, NULL);
    struct st_evtfile e;
    if (st_evt_open(&e, evt, EVT_CHUNK) != 0)
        abort();
    uint64_t n = rf_records_replay(&r, LOC, in_file, 0, &e, &refs, why);
    st_evt_close(&e);
    rf_records_close(&r);
    /* The events: one chunk, each an Enter or Leave after its own
     * timestamp: 05 t(8) [06 len attributes] 0C|0D count bytes... */
    *nts = 0;
    FILE *in = fopen(evt, "rb");
    uint8_t buf[EVT_CHUNK];
    size_t len = in ? fread(buf, 1, sizeof buf, in) : 0;
    if (in)
        fclose(in);
    for (size_t p = 18; p + 10 < len && buf[p] == 5 && *nts < cap;) {
        memcpy(&ts[(*nts)++], buf + p + 1, 8);
        p += 9;
        if (buf[p] == 6)   /* an attribute list (collapsed_calls): its length byte, then that many */
            p += 2 + buf[p + 1];
        if (buf[p] != 12 && buf[p] != 13)   /* Enter, Leave */
            break;
        p += 2 + (buf[p + 1] == 0 || buf[p + 1] == 0xff ? 0 : buf[p + 1]);
    }
    return counted == n ? (long)n : -2;
}

/* Whether ts[0..n) is t0, t0+1, ... */
static int consecutive(const uint64_t *ts, size_t n, uint64_t t0)
{
    for (size_t i = 0; i < n; i++)
        if (ts[i] != t0 + i)
            return 0;
    return 1;
}

int main(void)
{
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof path, "%s/rank-000000.records", dir);
    uint64_t ts[4096];
    size_t nts;
    const char *why;

    /* The tracer's state after a kill: chunks 1 and 2 converted (events
     * 1..10 and 11..20), 3 not yet (5 records), in file order 2, 0, 3, 1,
     * with a free chunk and another location's among them. */
    struct file f;
    file_init(&f, 6);
    chunk_put(&f, 2, LOC, 1, 0, 1000, 10);
    chunk_put(&f, 0, LOC, 2, 10, 1010, 10);
    chunk_put(&f, 3, LOC, 3, RF_RECCHUNK_UNCONVERTED, 1020, 5);
    chunk_put(&f, 1, LOC + 1, 1, RF_RECCHUNK_UNCONVERTED, 5000, 7);
    chunk_put(&f, 5, LOC, 9, 0, 9000, 3);
    chunk_head(&f, 5)->magic = 0;   /* free: its old records do not count */

    long n = replay(&f, 15, &why, ts, 4096, &nts);
    ok(n == 10 && nts == 10 && consecutive(ts, nts, 1015) && !why,
       "15 events in the file: the 10 records after them, in order, each once (%ld, %zu events from %llu; %s)", n, nts,
       (unsigned long long)(nts ? ts[0] : 0), why ? why : "no reason");
    n = replay(&f, 0, &why, ts, 4096, &nts);
    ok(n == 25 && consecutive(ts, nts, 1000) && nts == 25 && !why, "an empty event file: all 25 records (%ld)", n);
    n = replay(&f, 20, &why, ts, 4096, &nts);
    ok(n == 5 && consecutive(ts, nts, 1020) && !why, "20 in the file: the unconverted chunk's 5 (%ld)", n);
    n = replay(&f, 25, &why, ts, 4096, &nts);
    ok(n == 0 && nts == 0 && !why, "25 in the file (killed before the chunks were given back): nothing to add (%ld)", n);

    /* The first live chunk unconverted: it starts right after the file. */
    struct file g;
    file_init(&g, 2);
    chunk_put(&g, 1, LOC, 4, RF_RECCHUNK_UNCONVERTED, 40, 6);
    chunk_put(&g, 0, LOC, 5, RF_RECCHUNK_UNCONVERTED, 46, 4);
    n = replay(&g, 123, &why, ts, 4096, &nts);
    ok(n == 10 && consecutive(ts, nts, 40) && !why, "unconverted chunks only: all 10 records continue the file (%ld)", n);

    /* Damage. */
    chunk_head(&f, 0)->magic = 0;   /* seq 2 gone */
    n = replay(&f, 5, &why, ts, 4096, &nts);
    ok(n == 5 && consecutive(ts, nts, 1005) && why && strstr(why, "missing"),
       "a chunk missing: the records before the gap, and the reason (%ld: %s)", n, why ? why : "none");
    chunk_head(&f, 0)->magic = RF_RECCHUNK_LIVE;
    chunk_head(&f, 2)->first = 16;   /* the first live chunk starts after the file's end */
    n = replay(&f, 15, &why, ts, 4096, &nts);
    ok(n == 0 && nts == 0 && why && strstr(why, "do not continue"), "records that do not continue the file: none used (%s)",
       why ? why : "none");
    chunk_head(&f, 2)->first = 0;
    chunk_head(&f, 0)->first = 11;   /* seq 2 says it starts elsewhere than seq 1 ends */
    n = replay(&f, 0, &why, ts, 4096, &nts);
    ok(n == 10 && consecutive(ts, nts, 1000) && why && strstr(why, "out of order"), "a chunk out of order: stop there (%ld: %s)",
       n, why ? why : "none");
    chunk_head(&f, 0)->first = 10;
    chunk_head(&f, 0)->fill += 3;   /* not a whole word */
    n = replay(&f, 0, &why, ts, 4096, &nts);
    ok(n == 10 && why && strstr(why, "chunk of its records is damaged"), "a chunk whose end is not a word: stop there (%ld: %s)",
       n, why ? why : "none");
    chunk_head(&f, 0)->fill = chunk_head(&f, 0)->base + 8ull * (WORDS + 1);   /* past its end */
    n = replay(&f, 0, &why, ts, 4096, &nts);
    ok(n == 10 && why && strstr(why, "damaged"), "a chunk that claims more than it holds: stop there (%ld)", n);
    chunk_head(&f, 0)->fill = chunk_head(&f, 0)->base + 16ull * 10;
    static const struct {
        uint64_t header;
        const char *what;
    } bad[] = {
        { REC_KINDS, "an unknown kind" },
        { REC_SEND, "a send without its arguments" },
        { ST_REC_ENTER_KIND | ST_REC_TRUTH, "a true time in a rank without" },
        { ST_REC_ENTER_KIND | (uint64_t)1 << 30, "a reserved header bit" },
        { REC_COLL_END | (uint64_t)60000 << 8, "more arguments than the chunk holds" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t *w = chunk_words(&f, 0);
        uint64_t keep = w[2 * 4];
        w[2 * 4] = bad[i].header;   /* the 5th record of seq 2 */
        n = replay(&f, 0, &why, ts, 4096, &nts);
        ok(n == 14 && consecutive(ts, nts, 1000) && nts == 14 && why && strstr(why, "record is damaged"),
           "%s: the 14 records before it (%ld: %s)", bad[i].what, n, why ? why : "none");
        w[2 * 4] = keep;
    }
    n = replay(&f, 0, &why, ts, 4096, &nts);
    ok(n == 25 && !why, "mended, all 25 again (%ld)", n);

    /* An open polling run in the current chunk: after every record. */
    struct rf_recrun *run = &chunk_head(&f, 3)->run;
    *run = (struct rf_recrun){ RF_RECRUN_OPEN, 2, 7, 1100, 1100, 1160, 1160 };
    n = replay(&f, 20, &why, ts, 4096, &nts);
    ok(n == 7 && nts == 7 && consecutive(ts, 5, 1020) && ts[5] == 1100 && ts[6] == 1160 && !why,
       "an open polling run: its Enter and Leave after the records (%ld events, %zu stamps)", n, nts);
    chunk_head(&f, 2)->run = *run;   /* a stale one in an older chunk counts for nothing */
    run->open = 0;
    n = replay(&f, 20, &why, ts, 4096, &nts);
    ok(n == 5 && !why, "a run kept by a chunk that is no longer the current one is not added (%ld)", n);
    run->open = RF_RECRUN_OPEN;
    run->calls = 0;
    n = replay(&f, 20, &why, ts, 4096, &nts);
    ok(n == 5 && why && strstr(why, "polling run is damaged"), "a run of no calls: not added, the reason given (%s)",
       why ? why : "none");
    memset(run, 0, sizeof *run);
    memset(&chunk_head(&f, 2)->run, 0, sizeof *run);

    /* The file itself. */
    char err[4400];
    struct rf_records r;
    unlink(path);
    ok(rf_records_open(path, &r, err, sizeof err) == 1, "no records file: 1 (the tracer kept none)");
    FILE *o = fopen(path, "wb");
    fputs("synctrace-records 9\nnot this one, and long enough", o);
    fclose(o);
    ok(rf_records_open(path, &r, err, sizeof err) == -1 && strstr(err, path) && strstr(err, "not a synctrace records file")
           && !strchr(err, '\n'),
       "another header: one line naming the file (%s)", err);
    struct file h;
    file_init(&h, 1);
    uint64_t tiny = 64;
    memcpy(h.bytes + RF_RECORDS_CHUNK_BYTES_AT, &tiny, 8);
    file_write(&h);
    ok(rf_records_open(path, &r, err, sizeof err) == -1 && strstr(err, "damaged records file header"),
       "a chunk size that cannot hold a record: refused (%s)", err);
    free(h.bytes);
    file_init(&h, 0);
    file_write(&h);
    ok(rf_records_open(path, &r, err, sizeof err) == 0 && r.nchunks == 0
           && rf_records_replay(&r, LOC, 0, 0, NULL, NULL, &why) == 0 && !why,
       "a header and no chunk (killed before its first record): nothing, no reason");
    rf_records_close(&r);

    unlink(path);
    char evt[4300];
    snprintf(evt, sizeof evt, "%s/out.evt", dir);
    unlink(evt);
    rmdir(dir);
    free(f.bytes);
    free(g.bytes);
    free(h.bytes);
    return tap_finish();
}
