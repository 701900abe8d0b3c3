/*
 * declared.c: a background plugin whose descriptor declares the extensions
 * EXTENSIONS (ABI 1.2; none declared when the macro is not defined), and
 * whose get_extension offers ph.source/1 when OFFERS_SOURCE is defined: a
 * table one field larger than this header's with LARGER_TABLE (as a newer
 * header would make it), one that ends before stop with SMALLER_TABLE.
 * create appends "create", and the source's start and stop "start" and
 * "stop", to the file its `mark` setting names, so that a test sees what ran.
 */
#include <pushhost.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static char mark[4096];

/* Appends line to the mark file, when there is one. */
static void note(const char *line) {
    FILE *file = mark[0] ? fopen(mark, "a") : NULL;
    if (file) {
        fputs(line, file);
        fclose(file);
    }
}

static void *declared_create(const ph_host *host, const ph_config *config) {
    const char *path = host->config_get(config, "mark");
    if (path) snprintf(mark, sizeof mark, "%s", path);
    note("create\n");
    return mark;
}

static void declared_on_background(void *self, const ph_message *m) {
    (void)self;
    (void)m;
}

#ifdef OFFERS_SOURCE
static int source_start(void *self) {
    (void)self;
    note("start\n");
    return 0;
}

static void source_stop(void *self) {
    (void)self;
    note("stop\n");
}

/* What a newer header's table might be: this one and a field more. */
typedef struct newer_source {
    ph_source known;
    int (*PH_NULLABLE pause)(void *PH_NULLABLE self);
} newer_source;

#if defined(LARGER_TABLE)
static const newer_source source = {{sizeof(newer_source), source_start, source_stop}, NULL};
#elif defined(SMALLER_TABLE)
static const ph_source source = {offsetof(ph_source, stop), source_start, source_stop};
#else
static const ph_source source = {sizeof(ph_source), source_start, source_stop};
#endif
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
