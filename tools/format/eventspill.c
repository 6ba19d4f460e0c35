/* eventspill.c — see eventspill.h. A location's record in the file:
 *
 *   header   (struct header)
 *   slots    nevents x struct rt_slot
 *   columns  req, bytes, received: n x { index, value }
 *
 * A location's sparse members' sources stay in memory: the match reads
 * them after the pass (flow.c, which members a sparse collective member
 * received from), and they are few (one entry per sparse member).
 * The file lives as long as the process; nothing in it outlives the run,
 * so it is in memory's layout, not a portable format. */
#include <config.h>
#include "eventspill.h"
#include "fsutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_MAGIC UINT64_C(0x53545350494c4c31)   /* "STSPILL1" */

struct header {
    uint64_t magic, nevents, nreq, nbytes, nreceived;
};

struct rt_spill {
    int fd;
    uint64_t end;             /* bytes written */
    int failed;               /* the first error sticks: the file's end is no longer known */
    char *dir;
    char err[512];
};

static int fail(struct rt_spill *s, const char *fmt, ...)
{
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
        s->failed = 1;
    }
    return -1;
}

struct rt_spill *rt_spill_new(const char *dir, char *err, size_t errlen)
{
    struct rt_spill *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        snprintf(err, errlen, "events set aside in %s: out of memory", dir);
        return NULL;
    }
    if ((s->fd = st_nameless_file(dir, "synctrace-events")) < 0) {
        snprintf(err, errlen, "%s: cannot make a file to set events aside: %s", dir, strerror(errno));
        free(s->dir);
        free(s);
        return NULL;
    }
    return s;
}

/* The pieces of a location's record, in file order. */
struct piece {
    void *p;
    size_t len;
};

static size_t pieces_of(struct rt_rank *r, const struct header *h, struct piece v[6])
{
    struct rt_store_side *side = &r->side;
    size_t n = 0;
    v[n++] = (struct piece){ (void *)h, sizeof *h };
    v[n++] = (struct piece){ r->events, sizeof *r->events * h->nevents };
    v[n++] = (struct piece){ side->req.v, sizeof *side->req.v * h->nreq };
    v[n++] = (struct piece){ side->bytes.v, sizeof *side->bytes.v * h->nbytes };
    v[n++] = (struct piece){ side->received.v, sizeof *side->received.v * h->nreceived };
    return n;
}

/* Everything but the times and the true times leaves memory. */
static void drop_events(struct rt_rank *r)
{
    struct rt_store_side *side = &r->side;
    free(r->events);
    free(side->req.v);
    free(side->bytes.v);
    free(side->received.v);
    memset(&side->req, 0, sizeof side->req);
    memset(&side->bytes, 0, sizeof side->bytes);
    memset(&side->received, 0, sizeof side->received);
    r->events = NULL;
}

int rt_spill_out(struct rt_spill *s, struct rt_rank *r)
{
    if (s->failed)
        return -1;
    if (!r->events || !r->nevents)
        return 0;
    if (r->times) {   /* brought back before: the file still holds them */
        drop_events(r);
        return 0;
    }
    struct header h = { SPILL_MAGIC, r->nevents, r->side.req.n, r->side.bytes.n, r->side.received.n };
    struct rt_times *times = rt_times_of(r);
    if (!times)
        return fail(s, "events set aside in %s: out of memory", s->dir);
    struct piece v[6];
    size_t n = pieces_of(r, &h, v);
    uint64_t at = s->end;
    for (size_t k = 0; k < n; k++) {
        if (v[k].len && st_write_all(s->fd, v[k].p, v[k].len) != 0) {
            rt_times_free(times);
            return fail(s, "events set aside in %s: write: %s", s->dir, strerror(errno));
        }
        s->end += v[k].len;
    }
    rt_facts(r, &r->spilled_facts);
    drop_events(r);   /* the true times stay: the apply stage converts them */
    r->times = times;
    r->spill_at = at;
    return 0;
}

int rt_spill_in(struct rt_spill *s, struct rt_rank *r)
{
    if (s->failed)
        return -1;
    if (r->events || !r->times)
        return 0;
    struct header h;
    size_t got;
    if (st_pread_all(s->fd, &h, sizeof h, r->spill_at, &got) != 0 || got != sizeof h)
        return fail(s, "events set aside in %s: read: %s", s->dir, got == sizeof h ? strerror(errno) : "cut short");
    if (h.magic != SPILL_MAGIC || h.nevents != r->nevents)
        return fail(s, "events set aside in %s: the file was changed under us", s->dir);
    struct rt_store_side *side = &r->side;
    /* as many slots as the side columns have room for (the true times) */
    uint64_t cap = side->cap > h.nevents ? side->cap : h.nevents;
    struct rt_rank in = { 0 };
    in.events = malloc(sizeof *in.events * cap);
    in.side.req.v = malloc(sizeof *in.side.req.v * (h.nreq ? h.nreq : 1));
    in.side.bytes.v = malloc(sizeof *in.side.bytes.v * (h.nbytes ? h.nbytes : 1));
    in.side.received.v = malloc(sizeof *in.side.received.v * (h.nreceived ? h.nreceived : 1));
    int rc = 0;
    if (!in.events || !in.side.req.v || !in.side.bytes.v || !in.side.received.v) {
        rc = fail(s, "events set aside in %s: out of memory", s->dir);
    } else {
        struct piece v[6];
        size_t n = pieces_of(&in, &h, v);
        uint64_t at = r->spill_at;
        for (size_t k = 0; k < n && rc == 0; k++) {
            if (k > 0 && v[k].len && (st_pread_all(s->fd, v[k].p, v[k].len, at, &got) != 0 || got != v[k].len))
                rc = fail(s, "events set aside in %s: read: %s", s->dir,
                          got == v[k].len ? strerror(errno) : "cut short");
            at += v[k].len;
        }
    }
    if (rc != 0) {
        free(in.events);
        free(in.side.req.v);
        free(in.side.bytes.v);
        free(in.side.received.v);
        return -1;
    }
    r->events = in.events;
    side->req = (struct rt_column){ in.side.req.v, h.nreq, h.nreq ? h.nreq : 1 };
    side->bytes = (struct rt_column){ in.side.bytes.v, h.nbytes, h.nbytes ? h.nbytes : 1 };
    side->received = (struct rt_column){ in.side.received.v, h.nreceived, h.nreceived ? h.nreceived : 1 };
    return 0;
}

const char *rt_spill_error(const struct rt_spill *s)
{
    return s->failed ? s->err : "";
}

uint64_t rt_spill_bytes(const struct rt_spill *s)
{
    return s ? s->end : 0;
}

void rt_spill_free(struct rt_spill *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s->dir);
    free(s);
}
