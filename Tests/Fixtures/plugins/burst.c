/* The source plugin `burst`, which submits records from its own thread.
 * Its settings:
 * - `out` (required): the file it appends its lines to;
 * - `count`: start spawns a thread that submits records
 *   `{"message_id":"b-N","data":{}}` for N from 1, as fast as it can,
 *   `count` of them, or with 0 (the default) until submit returns -1;
 * - `pause_us`: a pause after each accepted record;
 * - `fail=true`: start returns -1 instead;
 * - `record=token`: the records are token events
 *   `{"pushhost":"token","token":"b-N"}` instead;
 * - `flags`: submits through `submit_record` (ABI 1.2) with these flags
 *   (1 `PH_RECORD_HOST_EVENT`, 2 `PH_RECORD_NO_WAIT`; a full host's
 *   answer, 1, is counted and the record submitted again 1 ms later).
 *
 * Its lines: `done N RESULT ok` from done (RESULT done, retry, rejected;
 * `ok` when the report line holds `"b-N"`, else `other`); from the
 * thread, `accepted K` and then `stopped after -1`, or `most
 * outstanding M` (the most records submitted and not yet done at one
 * time), `full F` (how often the host answered full) and `submitted all`;
 * `stop` from stop (which leaves the thread running, so that it meets
 * the -1); `destroy` from destroy, after it joined the thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <pushhost.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct burst {
    const ph_host *host;
    const ph_intake *intake;
    FILE *out;
    long count, pause_us, full;
    int fail, started, token, with_flags;
    uint32_t flags;
    pthread_t thread;
} burst;

static burst *instance; /* for done, whose ctx is the record's number */
static pthread_mutex_t counting = PTHREAD_MUTEX_INITIALIZER;
static long outstanding, most; /* submitted and not done yet: now, and at most */

static void count(long change) {
    pthread_mutex_lock(&counting);
    outstanding += change;
    if (outstanding > most) most = outstanding;
    pthread_mutex_unlock(&counting);
}

__attribute__((format(printf, 2, 3)))
static void put(burst *self, const char *format, ...) {
    va_list args;
    va_start(args, format);
    flockfile(self->out);
    vfprintf(self->out, format, args);
    fputc('\n', self->out);
    fflush(self->out);
    funlockfile(self->out);
    va_end(args);
}

static long number(const ph_host *host, const ph_config *config, const char *key) {
    const char *text = host->config_get(config, key);
    return text ? strtol(text, NULL, 10) : 0;
}

static void *create(const ph_host *host, const ph_config *config) {
    const char *out = host->config_get(config, "out");
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    if (!out || !intake) {
        host->log(host, PH_LOG_ERROR, "no out setting, or no ph.intake/1");
        return NULL;
    }
    burst *self = calloc(1, sizeof *self);
    if (!self || !(self->out = fopen(out, "a"))) {
        free(self);
        host->log(host, PH_LOG_ERROR, "cannot open the out file");
        return NULL;
    }
    self->host = host;
    self->intake = intake;
    self->count = number(host, config, "count");
    self->pause_us = number(host, config, "pause_us");
    const char *fail = host->config_get(config, "fail");
    self->fail = fail && strcmp(fail, "true") == 0;
    const char *record = host->config_get(config, "record");
    self->token = record && strcmp(record, "token") == 0;
    self->with_flags = host->config_get(config, "flags") != NULL;
    self->flags = (uint32_t)number(host, config, "flags");
    if (self->with_flags && !PH_HAS_FIELD(ph_intake, intake, submit_record)) {
        host->log(host, PH_LOG_ERROR, "this host has no submit_record");
        fclose(self->out);
        free(self);
        return NULL;
    }
    instance = self;
    return self;
}

static void done(void *ctx, ph_result result, const char *report_line) {
    long n = (long)(uintptr_t)ctx;
    char id[32];
    snprintf(id, sizeof id, "\"b-%ld\"", n);
    const char *word = result == PH_DONE ? "done" : result == PH_RETRY ? "retry"
        : result == PH_REJECTED ? "rejected" : "unknown";
    put(instance, "done %ld %s %s", n, word, strstr(report_line, id) ? "ok" : "other");
    count(-1);
}

static void *submitting(void *p) {
    burst *self = p;
    long accepted = 0;
    for (long n = 1; self->count == 0 || n <= self->count; n++) {
        char json[64];
        int len = self->token
            ? snprintf(json, sizeof json, "{\"pushhost\":\"token\",\"token\":\"b-%ld\"}", n)
            : snprintf(json, sizeof json, "{\"message_id\":\"b-%ld\",\"data\":{}}", n);
        count(+1); /* before submit: done may come before submit returns */
        int answer;
        while ((answer = self->with_flags
                    ? self->intake->submit_record(self->host, json, (size_t)len, self->flags, done, (void *)(uintptr_t)n)
                    : self->intake->submit(self->host, json, (size_t)len, done, (void *)(uintptr_t)n)) == 1) {
            self->full++;
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
        if (answer != 0) {
            count(-1);
            put(self, "accepted %ld", accepted);
            put(self, "stopped after -1");
            return NULL;
        }
        accepted++;
        if (self->pause_us > 0) {
            struct timespec pause = {self->pause_us / 1000000, (self->pause_us % 1000000) * 1000};
            nanosleep(&pause, NULL);
        }
    }
    put(self, "accepted %ld", accepted);
    pthread_mutex_lock(&counting);
    put(self, "most outstanding %ld", most);
    pthread_mutex_unlock(&counting);
    put(self, "full %ld", self->full);
    put(self, "submitted all");
    return NULL;
}

static int start(void *p) {
    burst *self = p;
    if (self->fail) {
        self->host->log(self->host, PH_LOG_ERROR, "asked to fail");
        return -1;
    }
    if (pthread_create(&self->thread, NULL, submitting, self) != 0) {
        self->host->log(self->host, PH_LOG_ERROR, "pthread_create failed");
        return -1;
    }
    self->started = 1;
    put(self, "started");
    return 0;
}

static void stop(void *p) { put(p, "stop"); }

static void destroy(void *p) {
    burst *self = p;
    if (self->started) pthread_join(self->thread, NULL);
    put(self, "destroy");
    fclose(self->out);
    free(self);
}

static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};

static const void *get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "burst", .version = "1.0.0", .description = "A test source.",
    .create = create, .destroy = destroy, .get_extension = get_extension,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
