/* sumfile.c — write and verify the checksum files of raw archives and the
 * seal line of run.meta (format in sumfile.h). */
#include "sumfile.h"
#include "rawformat.h"
#include "hash64.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEAL_PREFIX "checksum xxh64 "
#define SEAL_LEN (sizeof SEAL_PREFIX - 1 + 16 + 1)   /* prefix, 16 hex digits, newline */
#define HEADER "synctrace-sum 1 xxh64\n"
#define MAX_FILES 1000000   /* far above any rank's locations: a bound, not a limit */

/* Hash the first `limit` bytes of fd (all of it with UINT64_MAX); *size
 * gets how many there were, *last the last byte (-1: none). 0, or -1 with
 * errno. */
static int hash_fd(int fd, uint64_t limit, uint64_t *size, uint64_t *hash, int *last)
{
    enum { BLOCK = 256 * 1024 };
    unsigned char *buf = malloc(BLOCK);
    if (!buf)
        return -1;
    struct hash64 h;
    hash64_init(&h);
    uint64_t done = 0;
    *last = -1;
    while (done < limit) {
        size_t want = limit - done < BLOCK ? (size_t)(limit - done) : BLOCK;
        ssize_t n = read(fd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (n == 0)
            break;
        hash64_update(&h, buf, (size_t)n);
        *last = buf[n - 1];
        done += (uint64_t)n;
    }
    free(buf);
    *size = done;
    *hash = hash64_final(&h);
    return 0;
}

static int hash_path(const char *path, uint64_t *size, uint64_t *hash)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int last, rc = hash_fd(fd, UINT64_MAX, size, hash, &last);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int sum_seal(FILE *f, const char *path)
{
    uint64_t size, hash;
    if (fflush(f) != 0 || hash_path(path, &size, &hash) != 0)
        return -1;
    return fprintf(f, SEAL_PREFIX "%016llx\n", (unsigned long long)hash) < 0 ? -1 : 0;
}

static int parse_hex64(const char *s, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 16; i++) {
        int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint64_t)d;
    }
    return 0;
}

int sum_verify_sealed(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < SEAL_LEN) {
        snprintf(err, errlen, "%s: corrupt: no checksum line at its end (cut short, or not written by synctrace)", path);
        close(fd);
        return -1;
    }
    uint64_t body = (uint64_t)st.st_size - SEAL_LEN, size, hash, want;
    char seal[SEAL_LEN + 1];
    int last, rc = hash_fd(fd, body, &size, &hash, &last);
    ssize_t n = rc == 0 && size == body ? pread(fd, seal, SEAL_LEN, (off_t)body) : -1;
    int e = errno;
    close(fd);
    if (rc != 0 || n < 0) {   /* n < 0 with size != body: the seal was not read */
        snprintf(err, errlen, "%s: %s", path, rc != 0 || size == body ? strerror(e) : "changed while it was read");
        return -1;
    }
    seal[SEAL_LEN] = '\0';
    if ((size_t)n != SEAL_LEN || strncmp(seal, SEAL_PREFIX, sizeof SEAL_PREFIX - 1) != 0
        || parse_hex64(seal + sizeof SEAL_PREFIX - 1, &want) != 0 || seal[SEAL_LEN - 1] != '\n'
        || (body > 0 && last != '\n')) {
        snprintf(err, errlen, "%s: corrupt: no checksum line at its end (cut short, or not written by synctrace)", path);
        return -1;
    }
    if (hash != want) {
        snprintf(err, errlen, "%s: corrupt: its content does not match its checksum line", path);
        return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of FOLDER sorted by name (an order that does not depend on
 * the file system), or NULL with errno; *n gets the count. A missing folder
 * has none. */
static char **list_folder(const char *folder, size_t *n)
{
    *n = 0;
    DIR *d = opendir(folder);
    if (!d)
        return errno == ENOENT ? calloc(1, sizeof(char *)) : NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            char **nv = nc <= MAX_FILES ? realloc(v, nc * sizeof *v) : NULL;
            if (!nv)
                goto fail;
            v = nv;
            cap = nc;
        }
        if (!(v[*n] = strdup(de->d_name)))
            goto fail;
        (*n)++;
    }
    closedir(d);
    if (!v)
        v = calloc(1, sizeof(char *));
    if (v && *n > 1)
        qsort(v, *n, sizeof *v, by_name);
    return v;
fail:
    closedir(d);
    for (size_t i = 0; i < *n; i++)
        free(v[i]);
    free(v);
    errno = ENOMEM;
    return NULL;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* One line of the list: "HASH SIZE REL". */
static int write_entry(FILE *f, const char *dir, const char *rel, char *err, size_t errlen)
{
    char path[8400];
    uint64_t size, hash;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path || strpbrk(rel, " \t\r\n")) {
        snprintf(err, errlen, "%s/%s: a name the checksum file cannot hold", dir, rel);
        return -1;
    }
    if (hash_path(path, &size, &hash) != 0) {
        snprintf(err, errlen, "%s: cannot checksum it: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%016llx %llu %s\n", (unsigned long long)hash, (unsigned long long)size, rel);
    return 0;
}

int sum_write_archive(const char *dir, const char *name, char *err, size_t errlen)
{
    char folder[4400], tmp[4400], path[4400], rel[4400];
    if ((size_t)snprintf(folder, sizeof folder, "%s/%s", dir, name) >= sizeof folder
        || (size_t)snprintf(tmp, sizeof tmp, "%s/%s" RF_SUM_SUFFIX ".tmp", dir, name) >= sizeof tmp
        || (size_t)snprintf(path, sizeof path, "%s/%s" RF_SUM_SUFFIX, dir, name) >= sizeof path) {
        snprintf(err, errlen, "%s: path too long for its checksum file", dir);
        return -1;
    }
    size_t n;
    char **files = list_folder(folder, &n);
    if (!files) {
        snprintf(err, errlen, "%s: %s", folder, strerror(errno));
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free_list(files, n);
        return -1;
    }
    fputs(HEADER, f);
    int rc = 0;
    const char *own[] = { RF_ANCHOR_SUFFIX, RF_DEF_SUFFIX, RF_MEMBERS_SUFFIX };
    for (size_t i = 0; rc == 0 && i < 3; i++) {
        char file[8800];
        snprintf(rel, sizeof rel, "%s%s", name, own[i]);
        snprintf(file, sizeof file, "%s/%s", dir, rel);
        if (i < 2 || access(file, F_OK) == 0)   /* the membership file: when it could be written */
            rc = write_entry(f, dir, rel, err, errlen);
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        snprintf(rel, sizeof rel, "%s/%s", name, files[i]);
        rc = write_entry(f, dir, rel, err, errlen);
    }
    free_list(files, n);
    /* Synced before the rename: after a machine crash the checksum file is
     * whole or absent, never empty. The data files are not synced (OTF2
     * does not): should they be lost, the checksums say so. */
    if (rc == 0 && (sum_seal(f, tmp) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0)) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (fclose(f) != 0 && rc == 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    return rc;
}

/* Is REL a file of archive NAME: NAME.otf2, NAME.def, NAME.members or
 * NAME/FILE? Sets *in_folder for the last. */
static int own_path(const char *rel, const char *name, int *in_folder)
{
    size_t len = strlen(name);
    *in_folder = 0;
    if (strncmp(rel, name, len) != 0)
        return 0;
    if (strcmp(rel + len, RF_ANCHOR_SUFFIX) == 0 || strcmp(rel + len, RF_DEF_SUFFIX) == 0
        || strcmp(rel + len, RF_MEMBERS_SUFFIX) == 0)
        return 1;
    const char *file = rel + len + 1;
    if (rel[len] != '/' || !*file || strchr(file, '/') || strcmp(file, ".") == 0 || strcmp(file, "..") == 0)
        return 0;
    *in_folder = 1;
    return 1;
}

static int listed(char *const *v, size_t n, const char *file)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], file) == 0)
            return 1;
    return 0;
}

int sum_verify_archive(const char *anchor, char *err, size_t errlen)
{
    char dir[4200], name[256], sum[4500], path[8400], folder[4500];
    const char *slash = strrchr(anchor, '/');
    const char *base = slash ? slash + 1 : anchor;
    size_t blen = strlen(base);
    const size_t ext = sizeof RF_ANCHOR_SUFFIX - 1;
    if (blen <= ext || blen - ext >= sizeof name || strcmp(base + blen - ext, RF_ANCHOR_SUFFIX) != 0
        || (size_t)(base - anchor) >= sizeof dir) {
        snprintf(err, errlen, "%s: not a rank archive name (" RF_RANK_PREFIX "NNNNNN" RF_ANCHOR_SUFFIX ")", anchor);
        return -1;
    }
    memcpy(name, base, blen - ext);
    name[blen - ext] = '\0';
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - anchor), anchor);
    else
        snprintf(dir, sizeof dir, ".");
    snprintf(sum, sizeof sum, "%s/%s" RF_SUM_SUFFIX, dir, name);
    snprintf(folder, sizeof folder, "%s/%s", dir, name);
    int sealed = sum_verify_sealed(sum, err, errlen);
    if (sealed != 0)
        return sealed;

    /* The seal holds: the list is what the rank wrote. */
    FILE *f = fopen(sum, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", sum, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, nfiles = 0, fcap = 0;
    char **files = NULL;   /* the listed files of the folder */
    int rc = -1, saw_anchor = 0, saw_def = 0, saw_members = 0;
    ssize_t len = getline(&line, &cap, f);
    if (len < 0 || strcmp(line, HEADER) != 0) {
        snprintf(err, errlen, "%s: not a synctrace checksum file (format 1, xxh64)", sum);
        goto done;
    }
    while ((len = getline(&line, &cap, f)) > 0) {
        if (strncmp(line, SEAL_PREFIX, sizeof SEAL_PREFIX - 1) == 0) {
            rc = 0;
            break;
        }
        uint64_t want_hash, want_size, size, hash;
        char *end = NULL;
        int in_folder;
        if (len < 20 || line[16] != ' ' || line[len - 1] != '\n' || parse_hex64(line, &want_hash) != 0)
            goto malformed;
        line[len - 1] = '\0';
        errno = 0;
        want_size = strtoull(line + 17, &end, 10);
        if (errno || end == line + 17 || *end != ' ' || !own_path(end + 1, name, &in_folder))
            goto malformed;
        const char *rel = end + 1;
        saw_anchor |= strcmp(rel + strlen(name), RF_ANCHOR_SUFFIX) == 0;
        saw_def |= strcmp(rel + strlen(name), RF_DEF_SUFFIX) == 0;
        saw_members |= strcmp(rel + strlen(name), RF_MEMBERS_SUFFIX) == 0;
        if (in_folder) {
            if (nfiles == fcap) {
                size_t nc = fcap ? 2 * fcap : 16;
                char **nv = nc <= MAX_FILES ? realloc(files, nc * sizeof *nv) : NULL;
                if (!nv) {
                    snprintf(err, errlen, "%s: out of memory", sum);
                    goto done;
                }
                files = nv;
                fcap = nc;
            }
            if (!(files[nfiles] = strdup(rel + strlen(name) + 1))) {
                snprintf(err, errlen, "%s: out of memory", sum);
                goto done;
            }
            nfiles++;
        }
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (hash_path(path, &size, &hash) != 0) {
            if (errno == ENOENT)
                snprintf(err, errlen, "%s: missing: %s.sum lists it (the archive was closed with it)", path, name);
            else
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto done;
        }
        if (size != want_size) {
            snprintf(err, errlen, "%s: corrupt: %llu bytes, but %s.sum says %llu (changed after its rank closed it)",
                     path, (unsigned long long)size, name, (unsigned long long)want_size);
            goto done;
        }
        if (hash != want_hash) {
            snprintf(err, errlen, "%s: corrupt: its checksum does not match %s.sum (changed after its rank closed it)",
                     path, name);
            goto done;
        }
    }
    if (rc != 0 || !saw_anchor || !saw_def) {
        rc = -1;
        snprintf(err, errlen, "%s: corrupt: it does not list the archive's anchor and definitions", sum);
        goto done;
    }
    /* Nothing may have joined the archive since: a membership file it did
     * not list, a file in its folder. */
    snprintf(path, sizeof path, "%s/%s" RF_MEMBERS_SUFFIX, dir, name);
    if (!saw_members && access(path, F_OK) == 0) {
        snprintf(err, errlen, "%s: not in %s.sum: added after its rank closed the archive", path, name);
        rc = -1;
        goto done;
    }
    size_t n;
    char **present = list_folder(folder, &n);
    if (!present) {
        snprintf(err, errlen, "%s: %s", folder, strerror(errno));
        rc = -1;
        goto done;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!listed(files, nfiles, present[i])) {
            snprintf(err, errlen, "%s/%s: not in %s.sum: added after its rank closed the archive", folder,
                     present[i], name);
            rc = -1;
        }
    free_list(present, n);
    goto done;
malformed:
    snprintf(err, errlen, "%s: corrupt: malformed line '%.60s'", sum, line);
    rc = -1;
done:
    free(line);
    free_list(files, nfiles);
    fclose(f);
    return rc;
}
