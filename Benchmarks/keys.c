/*
 * keys.c: a data plugin for the many-keys benchmark. For each message it
 * asks for what a typical plugin asks for, the normalized JSON and the
 * data object (message_json, message_get(m, "data")), and continues.
 */
#include <pushhost.h>

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    return (void *)host;
}

static ph_verdict on_data(void *self, const ph_message *m) {
    const ph_host *host = self;
    size_t length = 0;
    host->message_json(m, &length);
    return host->message_get(m, "data") && length > 0 ? PH_CONTINUE : PH_FAILED;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "keys",
    .version = "1.0.0",
    .description = "Reads the normalized JSON and the data of each message.",
    .create = create,
    .on_data = on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
