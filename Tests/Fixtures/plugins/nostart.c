/* A source plugin whose start fails. */
#include <pushhost.h>
#include <string.h>

static void *create(const ph_host *h, const ph_config *c) { (void)h; (void)c; return (void *)1; }
static int start(void *self) { (void)self; return -1; }
static void stop(void *self) { (void)self; }
static const ph_source source = {sizeof(ph_source), start, stop};
static const void *get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "nostart", .version = "1", .create = create, .get_extension = get_extension,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
