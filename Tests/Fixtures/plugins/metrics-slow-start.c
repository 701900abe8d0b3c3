/* A background plugin whose create waits until the file at its `gate`
 * setting exists (for a minute at most), so that a test holds the host in
 * its start, before it is ready, for as long as it needs to look at it
 * (MetricsStartTests).
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <time.h>
#include <unistd.h>

static int state;

static void *create(const ph_host *host, const ph_config *config) {
    const char *gate = host->config_get(config, "gate");
    if (!gate) {
        host->log(host, PH_LOG_ERROR, "the gate setting is required");
        return NULL;
    }
    for (int tries = 0; tries < 6000 && access(gate, F_OK) != 0; tries++) {
        struct timespec wait = {0, 10000000L};
        nanosleep(&wait, NULL);
    }
    return &state;
}

static void destroy(void *self) { (void)self; }

static void on_background(void *self, const ph_message *m) {
    (void)self;
    (void)m;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "slowstart",
    .version = "1.0.0",
    .description = "Waits for a file before its create returns.",
    .create = create,
    .destroy = destroy,
    .on_background = on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
