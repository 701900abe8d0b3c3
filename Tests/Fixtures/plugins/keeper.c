/* A plugin that asks for its state folder in create() and logs what it got. */
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    const ph_state *state = host->get_extension(host, PH_EXT_STATE);
    const char *folder = state ? state->directory(host) : NULL;
    const char *again = state ? state->directory(host) : NULL;
    char line[4200];
    snprintf(line, sizeof line, "folder %s, same pointer %d", folder ? folder : "(none)", folder == again);
    host->log(host, PH_LOG_INFO, line);
    return malloc(1);
}

static void destroy(void *self) { free(self); }

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "keeper", .version = "1.0.0", .create = create, .destroy = destroy,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
