/* fsutil.h — file-system helpers shared by the tracer and the tools. */
#ifndef SYNCTRACE_FSUTIL_H
#define SYNCTRACE_FSUTIL_H

/* mkdir -p: 0, or -1 with errno. */
int st_mkdir_p(const char *path);
/* rm -r of a directory the caller made (not following symbolic links):
 * 0, or -1 when something could not be removed. */
int st_remove_tree(const char *path);

#include <stddef.h>
#include <stdint.h>

/* Where temporary files go: $TMPDIR, else /tmp. */
const char *st_temp_dir(void);
/* A nameless file in dir, for reading and writing: O_TMPFILE, so that it
 * vanishes even when the process is killed; where the kernel or the file
 * system lack it, a file named stem.XXXXXX unlinked at once. Its
 * descriptor, or -1 with errno. */
int st_nameless_file(const char *dir, const char *stem);
/* All len bytes written (retrying short writes): 0, or -1 with errno. */
int st_write_all(int fd, const void *p, size_t len);
/* The same at offset off (pwrite; the file position is not used). */
int st_pwrite_all(int fd, const void *p, size_t len, uint64_t off);
/* Up to len bytes read at off; *got < len only at the end of the file.
 * 0, or -1 with errno. */
int st_pread_all(int fd, void *p, size_t len, uint64_t off, size_t *got);
/* Exactly len bytes at off: NULL, or why not, for a message: the read's
 * error (strerror), or "cut short" when the file ends first. */
const char *st_pread_exact(int fd, void *p, size_t len, uint64_t off);

#endif
