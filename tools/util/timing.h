/* timing.h — seconds on the monotonic clock, for the tools' timings. */
#ifndef SYNCTRACE_TIMING_H
#define SYNCTRACE_TIMING_H

double st_now_s(void);

#endif
