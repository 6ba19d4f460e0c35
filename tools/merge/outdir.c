/* outdir.c — the merge's output, atomically: everything is written into
 * OUT.tmp-PID next to OUT and renamed into place only when complete; an
 * existing OUT is replaced only with --force (moved to OUT.old-PID first,
 * then removed); on any failure the temporary is removed and OUT is as it
 * was. The raw trace is only read. */
#define _XOPEN_SOURCE 700
#include <config.h>
#include "fsutil.h"
#include "merge_state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* OUT plus a suffix and our pid into buf; -1 (said why) if it does not fit:
 * a cut name could be someone else's directory, and it gets removed. */
static int sibling(char *buf, size_t len, const char *out, const char *suffix)
{
    int k = snprintf(buf, len, "%s.%s-%ld", out, suffix, (long)getpid());
    if (k < 0 || (size_t)k >= len) {
        fprintf(stderr, "synctrace merge: %s: path too long\n", out);
        return -1;
    }
    return 0;
}

int outdir_refuse_existing(const struct merge_options *o)
{
    struct stat sb;
    if (stat(o->out, &sb) == 0 && !o->force) {
        fprintf(stderr, "synctrace merge: %s exists (use --force to replace it)\n", o->out);
        return 1;
    }
    /* OUT is built beside itself (and the match spills there): a directory
     * that cannot hold it is said now, not after reading the whole trace */
    const char *why = merge_unwritable_dir(o->out_parent);
    if (why) {
        fprintf(stderr, "synctrace merge: %s: %s, so OUT_DIR %s cannot be made there\n", o->out_parent, why, o->out);
        return 1;
    }
    return 0;
}

int outdir_create(struct merge_state *st)
{
    if (sibling(st->tmp, sizeof st->tmp, st->opt.out, "tmp") != 0) {
        st->tmp[0] = '\0';
        return -1;
    }
    st_remove_tree(st->tmp);
    if (mkdir(st->tmp, 0777) != 0) {
        fprintf(stderr, "synctrace merge: %s: %s\n", st->tmp, strerror(errno));
        st->tmp[0] = '\0';
        return -1;
    }
    return 0;
}

int outdir_commit(struct merge_state *st)
{
    const char *out = st->opt.out;
    struct stat sb;
    if (stat(out, &sb) == 0 && !st->opt.force) {
        /* made while we merged (it was not there when we began): not ours to replace */
        fprintf(stderr, "synctrace merge: %s appeared while the merge ran: left as it is, nothing written "
                        "(--force replaces it)\n", out);
        return -1;
    }
    if (stat(out, &sb) == 0) {
        char old[sizeof st->tmp];
        if (sibling(old, sizeof old, out, "old") != 0)
            return -1;
        if (rename(out, old) != 0) {
            fprintf(stderr, "synctrace merge: cannot replace %s: %s\n", out, strerror(errno));
            return -1;
        }
        if (rename(st->tmp, out) != 0) {
            int e = errno;
            rename(old, out);   /* OUT as it was */
            fprintf(stderr, "synctrace merge: cannot replace %s: %s\n", out, strerror(e));
            return -1;
        }
        st_remove_tree(old);
    } else if (rename(st->tmp, out) != 0) {
        fprintf(stderr, "synctrace merge: cannot create %s: %s\n", out, strerror(errno));
        return -1;
    }
    st->tmp[0] = '\0';
    return 0;
}

void outdir_abandon(struct merge_state *st)
{
    if (st->tmp[0])
        st_remove_tree(st->tmp);
    st->tmp[0] = '\0';
}
