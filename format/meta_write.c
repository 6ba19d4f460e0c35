/* meta_write.c — see meta_write.h. */
#include "meta_write.h"
#include "rawformat.h"
#include "sumfile.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int rf_meta_begin(struct rf_meta *m, const char *dir, const struct rf_meta_head *h)
{
    memset(m, 0, sizeof *m);
    if (snprintf(m->tmp, sizeof m->tmp, "%s/" RF_META_TMP_FILE, dir) >= (int)sizeof m->tmp
        || snprintf(m->path, sizeof m->path, "%s/" RF_META_FILE, dir) >= (int)sizeof m->path)
        return -1;
    if (!(m->f = fopen(m->tmp, "w")))
        return -1;
    fprintf(m->f, RF_META_COMMENT "\n");
    fprintf(m->f, RF_META_KEY_FORMAT " %d\n" RF_META_KEY_VERSION " %s\n" RF_META_KEY_RUN_ID " %s\n"
                  RF_META_KEY_WORLD_SIZE " %d\n" RF_META_KEY_THREAD_LEVEL " %d\n",
            RF_META_FORMAT, h->version, h->run_id, h->world_size, h->thread_level);
    fprintf(m->f, RF_META_KEY_CLOCK " %s\n" RF_META_KEY_SYNC " %s%s%s\n" RF_META_KEY_SYNC_INTERVAL_CONFIG " %s\n"
                  RF_META_KEY_BUFFER_BYTES " %" PRIu64 "\n",
            h->clock, h->sync_init ? "init," : "", h->sync_finalize ? "finalize," : "",
            h->sync_periodic ? "periodic," : "", h->interval_config, h->buffer_bytes);
    fprintf(m->f, RF_META_KEY_SKEW " %s\n", h->skew);
    return 0;
}

void rf_meta_line(struct rf_meta *m, const char *key, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    fprintf(m->f, "%s ", key);
    vfprintf(m->f, fmt, va);
    fputc('\n', m->f);
    va_end(va);
}

void rf_meta_sync_peer(struct rf_meta *m, const char *key, int epoch, int peer, int parent, double rtt_min,
                       double rtt_median, double rtt_max, double offset, double error)
{
    fprintf(m->f, "%s.%d.peer.%d parent=%d rtt_min_ns=%.0f rtt_median_ns=%.0f rtt_max_ns=%.0f "
                  "offset_ns=%.0f error_ns=%.0f\n",
            key, epoch, peer, parent, rtt_min, rtt_median, rtt_max, offset, error);
}

void rf_meta_sync_summary(struct rf_meta *m, int epochs, int rounds_per_peer, int peers, int tree_steps,
                          double interval_s, const char *interval_mode)
{
    fprintf(m->f, RF_META_KEY_SYNC_EPOCHS " %d\n" RF_META_KEY_SYNC_ROUNDS_PER_PEER " %d\n" RF_META_KEY_SYNC_PEERS " %d\n"
                  RF_META_KEY_SYNC_TOPOLOGY " " RF_META_SYNC_TOPOLOGY_TREE "\n" RF_META_KEY_SYNC_TREE_STEPS " %d\n",
            epochs, rounds_per_peer, peers, tree_steps);
    fprintf(m->f, RF_META_KEY_SYNC_INTERVAL_S " %.6f\n" RF_META_KEY_SYNC_INTERVAL_MODE " %s\n", interval_s,
            interval_mode);
}

void rf_meta_domains(struct rf_meta *m, int n, const int *domain)
{
    fprintf(m->f, RF_META_KEY_CLOCK_DOMAINS);
    for (int r = 0; r < n; r++)
        fprintf(m->f, " %d", domain[r]);
    fprintf(m->f, "\n");
}

void rf_meta_rates(struct rf_meta *m, int n, const double *ticks_per_second)
{
    fprintf(m->f, RF_META_KEY_TICKS_PER_SECOND);
    for (int r = 0; r < n; r++)
        fprintf(m->f, " %.3f", ticks_per_second[r]);
    fprintf(m->f, "\n");
}

int rf_meta_end(struct rf_meta *m, const char *status)
{
    if (!m->f)
        return -1;
    fprintf(m->f, RF_META_KEY_STATUS " %s\n", status);
    /* Sealed with its checksum: a reader can tell a damaged one. */
    int failed = sum_seal(m->f, m->tmp) != 0;
    failed |= ferror(m->f);
    failed |= fclose(m->f) != 0;
    m->f = NULL;
    if (failed || rename(m->tmp, m->path) != 0) {
        unlink(m->tmp);
        return -1;
    }
    return 0;
}
