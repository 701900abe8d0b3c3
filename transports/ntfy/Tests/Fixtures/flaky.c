/* flaky: a data and background plugin for the ntfy plugin's tests. A message
 * whose title (ntfy's "title", which the host puts in data.title) is
 * "fail-once" fails its data stage the first time its id is seen, so that its
 * source is told to retry; "fail-always" fails every time. Every other
 * message continues to the background stage, which does nothing (so that it
 * is reported delivered). */
#include <pushhost.h>
#include <string.h>

static const ph_host *host;
static char failed[64][80];
static int failed_count;

static void *create(const ph_host *h, const ph_config *config) {
    (void)config;
    host = h;
    return (void *)&host;
}

static void destroy(void *self) { (void)self; }

static ph_verdict on_data(void *self, const ph_message *m) {
    (void)self;
    const char *title = host->message_get(m, "data.title");
    if (!title) return PH_CONTINUE;
    if (strcmp(title, "fail-always") == 0) return PH_FAILED;
    if (strcmp(title, "fail-once") != 0) return PH_CONTINUE;
    const char *id = host->message_id(m);
    for (int i = 0; i < failed_count; i++)
        if (strcmp(failed[i], id) == 0) return PH_CONTINUE;
    if (failed_count < 64 && strlen(id) < sizeof failed[0]) strcpy(failed[failed_count++], id);
    return PH_FAILED;
}

static void on_background(void *self, const ph_message *m) {
    (void)self;
    (void)m;
}

static const char *const extensions[] = {NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "flaky",
    .version = "1.0.0",
    .description = "Test plugin: fails messages titled fail-once (once) or fail-always.",
    .create = create,
    .destroy = destroy,
    .on_data = on_data,
    .on_background = on_background,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
