/* A third-party C plugin: one background handler that prints the title. */
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct thirdparty { const ph_host *host; } thirdparty;

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    thirdparty *self = malloc(sizeof *self);
    if (self) self->host = host;
    return self;
}

static void destroy(void *self) { free(self); }

static void on_background(void *p, const ph_message *m) {
    thirdparty *self = p;
    const char *title = self->host->message_get(m, "notification.title");
    printf("thirdparty: %s\n", title ? title : "(no title)");
    fflush(stdout);
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "thirdparty",
    .version = "0.1.0",
    .description = "Prints the title of each message in the background.",
    .create = create,
    .destroy = destroy,
    .on_background = on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
