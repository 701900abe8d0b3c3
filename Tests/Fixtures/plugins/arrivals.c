/* The `arrivals` plugin: a source that, once started, submits three
 * messages through submit_record_at, each claiming when its transport got
 * it: "hour-old" (time_to_live 60) an hour ago, "future" (time_to_live 0)
 * a day from now (which the host takes as now), and "now" (time_to_live
 * 86400) with 0 (now).
 */
#define _GNU_SOURCE
#include <pushhost.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct arrivals {
    const ph_host *host;
    const ph_intake *intake;
    pthread_t thread;
    int started;
} arrivals;

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    if (!intake || !PH_HAS_FIELD(ph_intake, intake, submit_record_at)) {
        host->log(host, PH_LOG_ERROR, "this host has no submit_record_at");
        return NULL;
    }
    arrivals *self = calloc(1, sizeof *self);
    if (self) {
        self->host = host;
        self->intake = intake;
    }
    return self;
}

static void *submit_all(void *p) {
    arrivals *self = p;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const int64_t ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    const struct { const char *json; int64_t arrived; } records[] = {
        {"{\"message_id\":\"hour-old\",\"time_to_live\":60,\"data\":{}}", ms - 3600 * 1000},
        {"{\"message_id\":\"future\",\"time_to_live\":0,\"data\":{}}", ms + 86400 * 1000},
        {"{\"message_id\":\"now\",\"time_to_live\":86400,\"data\":{}}", 0},
    };
    for (size_t i = 0; i < sizeof records / sizeof *records; i++)
        self->intake->submit_record_at(self->host, records[i].json, strlen(records[i].json), 0, records[i].arrived, NULL, NULL);
    return NULL;
}

static int start(void *p) {
    arrivals *self = p;
    self->started = pthread_create(&self->thread, NULL, submit_all, self) == 0;
    return self->started ? 0 : -1;
}

static void stop(void *p) {
    arrivals *self = p;
    if (self->started) pthread_join(self->thread, NULL);
    self->started = 0;
}

static void destroy(void *p) {
    if (p) stop(p);
    free(p);
}

static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};

static const void *get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

static const char *const extensions[] = {PH_EXT_SOURCE, PH_EXT_INTAKE, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "arrivals",
    .version = "1.0.0",
    .description = "Submits messages that claim when their transport got them.",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
