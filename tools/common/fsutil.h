/* fsutil.h — file-system helpers shared by the tracer and the generator. */
#ifndef SYNCTRACE_FSUTIL_H
#define SYNCTRACE_FSUTIL_H

/* mkdir -p: 0, or -1 with errno. */
int st_mkdir_p(const char *path);

#endif
