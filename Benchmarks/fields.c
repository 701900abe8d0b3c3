/*
 * fields.c: a data plugin for the throughput benchmark that reads what a
 * typical plugin reads of each message: its target, data.title, data.body
 * and priority (message_target, message_get). It adds up their lengths, so
 * that no read can be left out, and continues. With its setting `many` set
 * (and a host of 1.2 that has it), it reads the four in one call,
 * message_get_many. At shutdown it writes "messages N bytes B" to its `out`
 * setting, when set.
 */
#include <pushhost.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fields {
    const ph_host *host;
    const char *out;
    int many;
    unsigned long long messages, bytes;
} fields;

static size_t length(const char *text) { return text ? strlen(text) : 0; }

static void *fields_create(const ph_host *host, const ph_config *config) {
    fields *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->out = host->config_get(config, "out");
    self->many = host->config_get(config, "many") && PH_HAS_FIELD(ph_host, host, message_get_many);
    return self;
}

static void fields_destroy(void *p) {
    fields *self = p;
    FILE *out = self->out ? fopen(self->out, "w") : NULL;
    if (out) {
        fprintf(out, "messages %llu bytes %llu\n", self->messages, self->bytes);
        fclose(out);
    } else if (self->out) {
        self->host->log(self->host, PH_LOG_ERROR, "cannot write the `out` file");
    }
    free(self);
}

static ph_verdict fields_on_data(void *p, const ph_message *m) {
    fields *self = p;
    const ph_host *host = self->host;
    self->messages++;
    if (self->many) {
        static const char *const paths[] = {"target", "data.title", "data.body", "priority"};
        const char *values[4];
        host->message_get_many(m, paths, 4, values);
        self->bytes += length(values[0]) + length(values[1]) + length(values[2]) + length(values[3]);
        return PH_CONTINUE;
    }
    self->bytes += length(host->message_target(m)) + length(host->message_get(m, "data.title")) +
                   length(host->message_get(m, "data.body")) + length(host->message_get(m, "priority"));
    return PH_CONTINUE;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "fields",
    .version = "1.0.0",
    .description = "Reads target, data.title, data.body and priority of each message.",
    .create = fields_create,
    .destroy = fields_destroy,
    .on_data = fields_on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
