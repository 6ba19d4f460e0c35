/* otf2_quiet.c — see otf2_quiet.h. */
#include "otf2_quiet.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char reason[256];

static OTF2_ErrorCode keep_reason(void *ud, const char *file, uint64_t line, const char *function,
                                  OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud; (void)file; (void)line; (void)function;
    if (!reason[0] && fmt)
        vsnprintf(reason, sizeof reason, fmt, va);
    return code;
}

void rf_otf2_quiet(void)
{
    OTF2_Error_RegisterCallback(keep_reason, NULL);
    reason[0] = '\0';
}

void rf_otf2_explain(char *err, size_t errlen)
{
    size_t used = strlen(err);
    if (reason[0] && used + 4 < errlen)
        snprintf(err + used, errlen - used, " (%s)", reason);
}
