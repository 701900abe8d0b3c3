/* A background plugin named NAME (-DNAME='"rec"'; "recorder" by default)
 * that appends `create`, each of its settings KEYS (-DKEYS='"colour",
 * "size"'; none by default) as `KEY=VALUE` (`KEY=(unset)` when not set), and
 * `destroy` to the file at its `log` setting.
 */
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>

#include "noop.h"

#ifndef NAME
#define NAME "recorder"
#endif

static const char *const keys[] = {
#ifdef KEYS
    KEYS,
#endif
    NULL,
};

static FILE *out;

static void *create(const ph_host *h, const ph_config *c) {
    out = fopen(h->config_get(c, "log"), "a");
    if (!out) return NULL;
    fprintf(out, "create\n");
    for (const char *const *key = keys; *key; key++) {
        const char *value = h->config_get(c, *key);
        fprintf(out, "%s=%s\n", *key, value ? value : "(unset)");
    }
    fflush(out);
    return out;
}

static void destroy(void *self) {
    fprintf(self, "destroy\n");
    fclose(self);
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = NAME, .version = "2.3.4", .create = create, .destroy = destroy, .on_background = on_message,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
