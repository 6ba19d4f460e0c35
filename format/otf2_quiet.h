/* otf2_quiet.h — OTF2 prints every error on stderr, several lines deep;
 * the readers keep its first reason instead, for their one-line message. */
#ifndef SYNCTRACE_OTF2_QUIET_H
#define SYNCTRACE_OTF2_QUIET_H

#include <stddef.h>

/* Route OTF2's errors here and forget the last reason (per thread: the
 * merge reads ranks in parallel). Call before each read. */
void rf_otf2_quiet(void);
/* Append " (REASON)" to the message in err when OTF2 gave one. */
void rf_otf2_explain(char *err, size_t errlen);

#endif
