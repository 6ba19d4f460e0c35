/* fsutil.h — file-system helpers shared by the tracer and the tools. */
#ifndef SYNCTRACE_FSUTIL_H
#define SYNCTRACE_FSUTIL_H

/* mkdir -p: 0, or -1 with errno. */
int st_mkdir_p(const char *path);
/* rm -r of a directory the caller made (not following symbolic links):
 * 0, or -1 when something could not be removed. */
int st_remove_tree(const char *path);

#endif
