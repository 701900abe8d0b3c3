/* A source plugin built against the 1.1 header: from its own thread it
 * submits a message and then a token event through 1.1's `submit`, and
 * writes `done N RESULT` for each to the file at its `out` setting.
 */
#include <pushhost.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ph_host *host;
static const ph_intake *intake;
static FILE *out;
static pthread_t thread;

static void done(void *ctx, ph_result result, const char *line) {
    (void)line;
    fprintf(out, "done %ld %d\n", (long)(intptr_t)ctx, (int)result);
    fflush(out);
}

static void *submitting(void *p) {
    (void)p;
    const char *records[] = {"{\"message_id\":\"old-1\",\"data\":{}}", "{\"pushhost\":\"token\",\"token\":\"T-old\"}"};
    for (long n = 0; n < 2; n++) intake->submit(host, records[n], strlen(records[n]), done, (void *)(intptr_t)(n + 1));
    return NULL;
}

static void *create(const ph_host *h, const ph_config *config) {
    host = h;
    intake = h->get_extension(h, PH_EXT_INTAKE);
    const char *path = h->config_get(config, "out");
    out = path ? fopen(path, "a") : NULL;
    return intake && out && intake->struct_size >= sizeof(ph_intake) ? (void *)1 : NULL;
}
static int start(void *self) { (void)self; return pthread_create(&thread, NULL, submitting, NULL) == 0 ? 0 : -1; }
static void stop(void *self) { (void)self; }
static void destroy(void *self) { (void)self; pthread_join(thread, NULL); fclose(out); }
static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};
static const void *get_extension(void *self, const char *id) { (void)self; return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL; }
static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "old-source", .version = "1.1.0",
    .create = create, .destroy = destroy, .get_extension = get_extension,
};
PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
