/* spawn.c — dynamic processes.
 *
 * A spawned job cannot learn anything from its parents without traffic the
 * program did not ask for, which a tracer must not add (an untraced child
 * would never answer). So the parents' tracer tells it at the spawn, out
 * of band: at the root (the only rank whose info counts) the info handed
 * to MPI is the caller's plus Open MPI's "env" key, which sets
 * RF_ENV_PARENT in the children: the spawn intercommunicator's key (taken
 * by every parent before the call, communicators.c), the parents' run id
 * and trace directory. The caller's info is never modified; the copy is
 * freed after the call. An MPI that ignores the key leaves the children
 * without a parent: they still trace, beside the parents, unlinked. */
#include "spawn.h"
#include "fsutil.h"
#include "hooks.h"
#include "rawformat.h"
#include "tracer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ENV_KEY "env"

/* The caller's info with RF_ENV_PARENT added to its "env" value, or
 * MPI_INFO_NULL when that cannot be made. */
static MPI_Info with_parent(MPI_Info info, uint64_t key)
{
    char dir[PATH_MAX];
    if (!realpath(st_g.trace_dir, dir))
        return MPI_INFO_NULL;
    MPI_Info copy = MPI_INFO_NULL;
    if ((info == MPI_INFO_NULL ? PMPI_Info_create(&copy) : PMPI_Info_dup(info, &copy)) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    int len = 0, flag = 0;
    if (info != MPI_INFO_NULL)
        PMPI_Info_get_valuelen(info, ENV_KEY, &len, &flag);
    size_t size = (flag ? (size_t)len : 0) + sizeof dir + 256;
    char *value = malloc(size);
    if (!value) {
        PMPI_Info_free(&copy);
        return MPI_INFO_NULL;
    }
    size_t n = 0;
    if (flag) {
        int got = 0;
        PMPI_Info_get(info, ENV_KEY, len, value, &got);
        if (!got)
            value[0] = '\0';
        n = strlen(value);
        if (n && value[n - 1] != '\n')
            value[n++] = '\n';
    }
    /* MPI bounds an info value (256 bytes in Open MPI): without the
     * directory, the children trace into SYNCTRACE_DIR/spawn-N, linked
     * all the same */
    snprintf(value + n, size - n, RF_ENV_PARENT "=%016llx %s %s", (unsigned long long)key, st_g.run_id, dir);
    if (strlen(value) >= MPI_MAX_INFO_VAL)
        snprintf(value + n, size - n, RF_ENV_PARENT "=%016llx %s", (unsigned long long)key, st_g.run_id);
    int rc = strlen(value) < MPI_MAX_INFO_VAL ? PMPI_Info_set(copy, ENV_KEY, value) : MPI_ERR_INFO_VALUE;
    free(value);
    if (rc != MPI_SUCCESS) {
        PMPI_Info_free(&copy);
        return MPI_INFO_NULL;
    }
    return copy;
}

static int at_root(MPI_Comm comm, int root)
{
    int me = -1;
    return st_g.phase == ST_RECORDING && PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me == root;
}

MPI_Info st_spawn_info(MPI_Comm comm, int root, MPI_Info info, uint64_t key)
{
    if (!at_root(comm, root))
        return info;
    MPI_Info copy = with_parent(info, key);
    return copy != MPI_INFO_NULL ? copy : info;
}

void st_spawn_info_free(MPI_Info used, MPI_Info caller)
{
    if (used != caller && used != MPI_INFO_NULL)
        PMPI_Info_free(&used);
}

const MPI_Info *st_spawn_infos(MPI_Comm comm, int root, int count, const MPI_Info *infos, uint64_t key)
{
    if (count <= 0 || !infos || !at_root(comm, root))
        return infos;
    MPI_Info *copy = malloc(sizeof *copy * (size_t)count);
    if (!copy)
        return infos;
    for (int i = 0; i < count; i++) {
        copy[i] = with_parent(infos[i], key);
        if (copy[i] == MPI_INFO_NULL) {   /* all or none: the children share one parent */
            while (i-- > 0)
                PMPI_Info_free(&copy[i]);
            free(copy);
            return infos;
        }
    }
    return copy;
}

void st_spawn_infos_free(int count, const MPI_Info *used, const MPI_Info *caller)
{
    if (used == caller || !used)
        return;
    MPI_Info *copy = (MPI_Info *)used;
    for (int i = 0; i < count; i++)
        PMPI_Info_free(&copy[i]);
    free(copy);
}

void st_spawn_read_parent(struct st_parent *p)
{
    memset(p, 0, sizeof *p);
    const char *v = getenv(RF_ENV_PARENT);
    if (!v)
        return;
    char *end;
    errno = 0;
    unsigned long long key = strtoull(v, &end, 16);
    if (errno || end == v || *end != ' ')
        return;
    /* "KEY RUN_ID DIR", or "KEY RUN_ID" when DIR did not fit */
    const char *run = end + 1, *sp = strchr(run, ' ');
    size_t runlen = sp ? (size_t)(sp - run) : strlen(run);
    if (runlen == 0 || runlen >= sizeof p->run_id || (sp && (strlen(sp + 1) >= sizeof p->dir || sp[1] != '/')))
        return;
    memcpy(p->run_id, run, runlen);
    if (sp)
        strcpy(p->dir, sp + 1);
    p->key = key;
    p->known = 1;
}

int st_spawn_make_dir(const char *base, char *out, size_t outlen)
{
    if (st_mkdir_p(base) != 0)
        return -1;
    for (int n = 0; n < 1000000; n++) {
        if ((size_t)snprintf(out, outlen, "%s/" RF_SPAWN_DIR_PREFIX "%d", base, n) >= outlen) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}
