/*
 * declared.c: a background plugin whose descriptor declares the extensions
 * EXTENSIONS (ABI 1.2; none declared when the macro is not defined), and
 * whose get_extension offers ph.source/1 when OFFERS_SOURCE is defined.
 * create appends "create" to the file its `mark` setting names, so that a
 * test sees whether it ran.
 */
#include <pushhost.h>

#include <stdio.h>
#include <string.h>

static int the_state;

static void *declared_create(const ph_host *host, const ph_config *config) {
    const char *mark = host->config_get(config, "mark");
    FILE *file = mark ? fopen(mark, "a") : NULL;
    if (file) {
        fputs("create\n", file);
        fclose(file);
    }
    return &the_state;
}

static void declared_on_background(void *self, const ph_message *m) {
    (void)self;
    (void)m;
}

#ifdef OFFERS_SOURCE
static int source_start(void *self) {
    (void)self;
    return 0;
}

static void source_stop(void *self) { (void)self; }

static const ph_source source = {sizeof(ph_source), source_start, source_stop};
#endif

static const void *declared_get_extension(void *self, const char *id) {
    (void)self;
#ifdef OFFERS_SOURCE
    if (strcmp(id, PH_EXT_SOURCE) == 0) return &source;
#else
    (void)id;
#endif
    return NULL;
}

#ifdef EXTENSIONS
static const char *const extensions[] = {EXTENSIONS};
#endif

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "declared",
    .version = "1.0.0",
    .create = declared_create,
    .on_background = declared_on_background,
    .get_extension = declared_get_extension,
#ifdef EXTENSIONS
    .extensions = extensions,
#endif
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
