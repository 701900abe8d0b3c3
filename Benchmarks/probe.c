/*
 * probe.c: a data plugin for the HotPath micro-benchmarks, to time the host
 * accessors as a plugin calls them. The benchmark hands it a function with
 * probe_set; on_data calls that function, which may call probe_get, during
 * the call, then continues. probe_get(path) is message_get(m, path) through
 * the plugin's own host table, for the message on_data is handling.
 */
#include <pushhost.h>

static const ph_host *probe_host;
static const ph_message *probe_message;
static void (*probe_body)(void *context);
static void *probe_context;

static void *probe_create(const ph_host *host, const ph_config *config) {
    (void)config;
    probe_host = host;
    return (void *)host;
}

static ph_verdict probe_on_data(void *self, const ph_message *m) {
    (void)self;
    probe_message = m;
    if (probe_body) probe_body(probe_context);
    probe_message = NULL;
    return PH_CONTINUE;
}

/* The function on_data calls with context, or NULL for none. */
PH_EXPORT void probe_set(void (*body)(void *context), void *context) {
    probe_body = body;
    probe_context = context;
}

/* message_get(m, path) for the message on_data is handling. */
PH_EXPORT const char *probe_get(const char *path) { return probe_host->message_get(probe_message, path); }

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "probe",
    .version = "1.0.0",
    .description = "Lets the HotPath benchmarks call the host accessors during on_data.",
    .create = probe_create,
    .on_data = probe_on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
