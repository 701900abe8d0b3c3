/* A data plugin that answers `PH_PENDING` for a message with
 * `data.late`, and `delay_ms` later, from its own thread, reads it
 * through the accessors (writing what they answer) and completes it.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ph_host *host;
static FILE *out;
static long delay_ms;

static void *create(const ph_host *h, const ph_config *c) {
    host = h;
    out = fopen(h->config_get(c, "log"), "a");
    delay_ms = strtol(h->config_get(c, "delay_ms"), NULL, 10);
    return out;
}

static void *answer(void *p) {
    const ph_message *m = p;
    usleep((useconds_t)delay_ms * 1000);
    size_t length = 99;
    const char *json = host->message_json(m, &length);
    const char *data = host->message_get(m, "data");
    const char *target = host->message_target(m);
    fprintf(out, "late id=[%s] data=%s target=%s json=[%s] length=%zu\n", host->message_id(m),
            data ? data : "NULL", target ? target : "NULL", json, length);
    fflush(out);
    host->complete(host, m, PH_CONTINUE);
    return NULL;
}

static ph_verdict on_data(void *self, const ph_message *m) {
    (void)self;
    if (!host->message_get(m, "data.late")) return PH_CONTINUE;
    fprintf(out, "pending %s\n", host->message_id(m));
    fflush(out);
    pthread_t thread;
    pthread_create(&thread, NULL, answer, (void *)m);
    pthread_detach(thread);
    return PH_PENDING;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "late", .version = "1.0.0", .create = create, .on_data = on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
