/* members.c — see members.h. */
#include "members.h"
#include "rawformat.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#define UNDEFINED OTF2_UNDEFINED_UINT64

/* ---------- the runs codec ---------- */

/* The space a member lies in: 0 a world rank, 1 + SET an index of outside
 * set SET (rawformat.h, RF_OUTSIDE_BASE), UINT32_MAX undefined; and its
 * value there. A run stays in one space. */
static uint32_t space_of(uint64_t m)
{
    return m == UNDEFINED ? UINT32_MAX : RF_MEMBER_IS_OUTSIDE(m) ? 1 + RF_OUTSIDE_SET(m) : 0;
}

static uint64_t value_of(uint64_t m)
{
    return RF_MEMBER_IS_OUTSIDE(m) ? RF_OUTSIDE_INDEX(m) : m;
}

int rf_runs_encode(FILE *f, uint32_t n, const uint64_t *m)
{
    if (n == 0)
        return fputc('-', f) == EOF ? -1 : 0;
    for (uint32_t i = 0; i < n;) {
        if (i && fputc(',', f) == EOF)
            return -1;
        uint32_t j = i, space = space_of(m[i]);
        if (space == UINT32_MAX) {
            while (j + 1 < n && m[j + 1] == UNDEFINED)
                j++;
            if (fprintf(f, j > i ? "?:%" PRIu32 : "?", j - i + 1) < 0)
                return -1;
            i = j + 1;
            continue;
        }
        if (space && fprintf(f, "o%" PRIu32 ".", space - 1) < 0)
            return -1;
        int64_t step = 0;
        if (i + 1 < n && space_of(m[i + 1]) == space) {
            step = (int64_t)(value_of(m[i + 1]) - value_of(m[i]));
            j = i + 1;
            while (j + 1 < n && space_of(m[j + 1]) == space
                   && (int64_t)(value_of(m[j + 1]) - value_of(m[j])) == step)
                j++;
        }
        uint32_t count = j - i + 1;
        /* A pair is a run only in steps of one ("4:2" is no longer than
         * "4,5" but "4,9" is shorter than "4:2:5"); the next run may start
         * at its second member. */
        if (count >= 3 || (count == 2 && step == 1)) {
            int w = step == 1 ? fprintf(f, "%" PRIu64 ":%" PRIu32, value_of(m[i]), count)
                              : fprintf(f, "%" PRIu64 ":%" PRIu32 ":%" PRId64, value_of(m[i]), count, step);
            if (w < 0)
                return -1;
            i = j + 1;
        } else {
            if (fprintf(f, "%" PRIu64, value_of(m[i])) < 0)
                return -1;
            i++;
        }
    }
    return 0;
}

/* A decimal number at *p (no sign, at most 19 digits): 0, or -1. */
static int number(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int digits = 0;
    while (s < end && *s >= '0' && *s <= '9' && digits < 20) {
        v = v * 10 + (uint64_t)(*s++ - '0');
        digits++;
    }
    if (digits == 0 || digits > 19)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

int rf_runs_decode(const char *s, const char *end, uint32_t n, uint64_t world, uint64_t *out, char *problem,
                   size_t len)
{
    if (!end)
        end = s + strlen(s);
    if (end - s == 1 && *s == '-') {
        if (n != 0) {
            snprintf(problem, len, "no member where %" PRIu32 " were announced", n);
            return -1;
        }
        return 0;
    }
    uint32_t k = 0;
    const char *p = s, *run = s;
    if (p == end)
        goto bad;
    while (p < end) {
        run = p;
        uint64_t first = UNDEFINED, count = 1, step = 1, set = 0, limit = world;
        int negative = 0, outside = 0;
        if (*p == 'o') {   /* an outside set's indices: "oSET.INDEX..." */
            p++;
            if (number(&p, end, &set) != 0 || set >= RF_OUTSIDE_MAX_SETS || p == end || *p++ != '.')
                goto bad;
            outside = 1;
            limit = (uint64_t)UINT32_MAX + 1;
        }
        if (*p == '?' && !outside)
            p++;
        else if (number(&p, end, &first) != 0)
            goto bad;
        else if (first >= limit) {
            if (outside)
                goto bad;
            snprintf(problem, len, "world rank %" PRIu64 " outside the world of %" PRIu64 " ranks", first, world);
            return -1;
        }
        if (p < end && *p == ':') {
            p++;
            if (number(&p, end, &count) != 0 || count == 0)
                goto bad;
            if (p < end && *p == ':') {
                if (first == UNDEFINED)
                    goto bad;
                p++;
                if (p < end && *p == '-') {
                    negative = 1;
                    p++;
                }
                if (number(&p, end, &step) != 0 || step > limit)
                    goto bad;
            }
        }
        if (p < end && *p++ != ',')
            goto bad;
        if (p == end && p[-1] == ',')
            goto bad;
        if (count > n - k) {
            snprintf(problem, len, "more members than the %" PRIu32 " announced", n);
            return -1;
        }
        if (first != UNDEFINED && count > 1) {
            /* the last member must be in its space too (no wrap: count < 2^32, step <= 2^32) */
            uint64_t span = (count - 1) * step;
            if (negative ? span > first : span >= limit - first) {
                if (outside)
                    snprintf(problem, len, "a run that leaves outside set %" PRIu64 "'s indices", set);
                else
                    snprintf(problem, len, "a run that leaves the world of %" PRIu64 " ranks", world);
                return -1;
            }
        }
        for (uint64_t i = 0; i < count; i++) {
            uint64_t v = first == UNDEFINED ? UNDEFINED : negative ? first - i * step : first + i * step;
            out[k++] = outside ? RF_OUTSIDE_MEMBER(set, v) : v;
        }
    }
    if (k != n) {
        snprintf(problem, len, "%" PRIu32 " members where %" PRIu32 " were announced", k, n);
        return -1;
    }
    return 0;
bad:
    if (run == end) {
        snprintf(problem, len, "malformed member runs: none, or cut short");
    } else {
        const char *stop = memchr(run + 1, ',', (size_t)(end - run - 1));
        int shown = (int)((stop ? stop : end) - run);
        snprintf(problem, len, "malformed member run '%.*s'", shown < 24 ? shown : 24, run);
    }
    return -1;
}

/* ---------- the file ---------- */

static int write_all(FILE *f, const struct rf_defs *d, int rank, int world_size)
{
    int ok = fprintf(f, "%s %d\n%s %d %s %d\n", RF_MEMBERS_MAGIC, RF_MEMBERS_FORMAT, RF_MB_RANK, rank, RF_MB_WORLD,
                     world_size) > 0;
    for (uint32_t g = 0; ok && g < d->ngroups; g++) {
        const struct rf_group_def *gr = &d->groups[g];
        ok = fprintf(f, "%s %" PRIu32 " %" PRIu32 " ", RF_MB_GROUP, g, gr->n) > 0
             && rf_runs_encode(f, gr->n, gr->members) == 0 && fputc('\n', f) != EOF;
    }
    uint32_t ncomms = 0;
    for (uint32_t c = 0; ok && c < d->ncomms; c++) {
        const struct rf_comm_def *cd = &d->comms[c];
        if (!cd->set)
            continue;
        ncomms++;
        if (d->groups[cd->local].self)
            ok = fprintf(f, "%s %" PRIu32 " %s", RF_MB_COMM, c, RF_MB_SELF) > 0;
        else
            ok = fprintf(f, "%s %" PRIu32 " %" PRIu32, RF_MB_COMM, c, cd->local) > 0;
        if (ok && cd->inter)
            ok = fprintf(f, " %s %" PRIu32, RF_MB_REMOTE, cd->remote) > 0;
        if (ok && cd->has_key)
            ok = fprintf(f, " %s %016" PRIx64, RF_MB_KEY, cd->key) > 0;
        if (ok && cd->has_in)
            ok = fprintf(f, " %s %" PRIu32 " ", RF_MB_IN, cd->nin) > 0 && rf_runs_encode(f, cd->nin, cd->in) == 0;
        ok = ok && fputc('\n', f) != EOF;
    }
    return ok && fprintf(f, "%s %" PRIu32 "\n", RF_MB_END, ncomms) > 0 ? 0 : -1;
}

int rf_members_write(const char *dir, const char *name, const struct rf_defs *d, int rank, int world_size,
                     char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    if ((size_t)snprintf(path, sizeof path, "%s/%s" RF_MEMBERS_SUFFIX, dir, name) >= sizeof path
        || (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        snprintf(err, errlen, "%s: path too long for the membership file", dir);
        return -1;
    }
    if (d->strings.failed) {
        snprintf(err, errlen, "%s: not written: the definitions are incomplete (out of memory)", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    int rc = write_all(f, d, rank, world_size);
    if (fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write it: %s", path, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

int rf_members_declare(OTF2_Archive *ar)
{
    char v[16];
    snprintf(v, sizeof v, "%d", RF_MEMBERS_FORMAT);
    return OTF2_Archive_SetProperty(ar, RF_PROP_MEMBERS, v, true) == OTF2_SUCCESS ? 0 : -1;
}
