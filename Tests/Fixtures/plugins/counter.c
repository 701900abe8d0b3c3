/* A data plugin that writes, per message, the length of `message_json`,
 * the length of `message_get(m, "data")`, how many keys that object has
 * (its values hold no colon), and `data.k1`.
 */
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter { const ph_host *host; FILE *out; } counter;
static void *create(const ph_host *h, const ph_config *c) {
    counter *self = calloc(1, sizeof *self);
    if (!self || !(self->out = fopen(h->config_get(c, "log"), "a"))) return NULL;
    self->host = h;
    return self;
}
static void destroy(void *p) { counter *self = p; fclose(self->out); free(self); }
static ph_verdict on_data(void *p, const ph_message *m) {
    counter *self = p;
    size_t length = 0;
    const char *json = self->host->message_json(m, &length);
    const char *data = self->host->message_get(m, "data");
    const char *k1 = self->host->message_get(m, "data.k1");
    size_t keys = 0;
    for (const char *c = data; c && *c; c++) keys += *c == ':';
    fprintf(self->out, "%s json=%zu/%zu data=%zu keys=%zu k1=%s first=%.12s\n", self->host->message_id(m),
            length, strlen(json), data ? strlen(data) : 0, keys, k1 ? k1 : "NULL", data ? data : "NULL");
    fflush(self->out);
    return PH_CONTINUE;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "counter", .version = "1.0.0", .create = create, .destroy = destroy, .on_data = on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
