/* A background plugin that fails each message whose `data.fail` is
 * set, with that text as the reason, when the host's table has `fail`.
 */
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>

static const ph_host *host;
static void *create(const ph_host *h, const ph_config *c) {
    (void)c;
    host = h;
    return PH_HAS_FIELD(ph_host, h, fail) ? (void *)1 : NULL;
}
static void on_background(void *self, const ph_message *m) {
    (void)self;
    const char *reason = host->message_get(m, "data.fail");
    if (reason) host->fail(host, m, reason);
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "shower", .create = create, .on_background = on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
