/* anchor_check.c — see anchor_check.h. The anchor file, as OTF2 3.0 writes
 * it (OTF2_AnchorFile.c): a chunk-header byte, the byte order (0x42 little
 * endian, 0x23 big), the string "OTF2", the anchor format, 38 bytes of fixed
 * fields, three strings (machine, creator, description), then from format 2
 * on a 32-bit property count in the file's byte order, that many pairs of
 * strings, and more. Strings end with a NUL byte. */
#include "anchor_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANCHOR_MAX_BYTES (1u << 20)   /* ours are a few hundred bytes */

/* Skip a NUL-terminated string at *pos; 0, or -1 when the file ends first. */
static int skip_string(const unsigned char *p, size_t n, size_t *pos)
{
    const unsigned char *nul = *pos < n ? memchr(p + *pos, 0, n - *pos) : NULL;
    if (!nul)
        return -1;
    *pos = (size_t)(nul - p) + 1;
    return 0;
}

int anchor_check(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;   /* OTF2 reports a missing or unreadable file itself */
    unsigned char *p = malloc(ANCHOR_MAX_BYTES);
    size_t n = p ? fread(p, 1, ANCHOR_MAX_BYTES, f) : 0;
    fclose(f);
    if (!p)
        return 0;
    int rc = 0;
    size_t pos = 2;
    const uint16_t one = 1;
    int little_host = *(const unsigned char *)&one == 1;
    /* Anything that does not parse is left to OTF2's own checks. */
    if (n > 2 && (p[1] == 0x42 || p[1] == 0x23) && skip_string(p, n, &pos) == 0 && pos < n) {
        unsigned format = p[pos++];
        pos += 38;
        if (format > 1 && skip_string(p, n, &pos) == 0 && skip_string(p, n, &pos) == 0
            && skip_string(p, n, &pos) == 0 && pos + 4 <= n) {
            uint32_t count;
            memcpy(&count, p + pos, 4);
            if ((p[1] == 0x42) != little_host)
                count = (count >> 24) | ((count >> 8) & 0xff00u) | ((count << 8) & 0xff0000u) | (count << 24);
            pos += 4;
            if (count > (n - pos) / 2) {   /* each property: two strings of at least their NUL */
                snprintf(err, errlen, "%s: corrupt anchor file (%u properties in %zu bytes)", path, count, n - pos);
                rc = -1;
            }
        }
    }
    free(p);
    return rc;
}
