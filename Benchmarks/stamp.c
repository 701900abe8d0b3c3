/*
 * stamp.c: a no-op background plugin for the benchmarks. It notes when each
 * message reached it (CLOCK_REALTIME, nanoseconds) and its id, in memory,
 * and writes them to its `out` setting at shutdown, so that measuring
 * costs the host nothing while it runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <pushhost.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct stamp {
    const ph_host *host;
    char *out;
    size_t count, capacity;
    struct { long long at; char id[120]; } *seen;
} stamp;

static void *stamp_create(const ph_host *host, const ph_config *config) {
    const char *out = host->config_get(config, "out");
    if (!out) {
        host->log(host, PH_LOG_ERROR, "the `out` setting is required");
        return NULL;
    }
    stamp *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->out = strdup(out);
    return self;
}

static void stamp_on_message(void *p, const ph_message *m) {
    stamp *self = p;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (self->count == self->capacity) {
        size_t capacity = self->capacity ? self->capacity * 2 : 8192;
        void *grown = realloc(self->seen, capacity * sizeof *self->seen);
        if (!grown) return;
        self->seen = grown;
        self->capacity = capacity;
    }
    self->seen[self->count].at = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    snprintf(self->seen[self->count].id, sizeof self->seen[self->count].id, "%s", self->host->message_id(m));
    self->count++;
}

static void stamp_destroy(void *p) {
    stamp *self = p;
    FILE *out = fopen(self->out, "w");
    if (out) {
        for (size_t i = 0; i < self->count; i++) fprintf(out, "%s %lld\n", self->seen[i].id, self->seen[i].at);
        fclose(out);
    }
    free(self->seen);
    free(self->out);
    free(self);
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "stamp",
    .version = "1.0.0",
    .description = "Benchmark probe: notes when each message arrives.",
    .create = stamp_create,
    .destroy = stamp_destroy,
    .on_background = stamp_on_message,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
