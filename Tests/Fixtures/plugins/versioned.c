/* A data and background plugin named NAME (-DNAME='"one"'; "versioned" by
 * default) in version VERSION (-DVERSION='"2"'; "1" by default), for the
 * reload tests. It appends a line to the file at its `log` setting for
 * each call: `NAME VERSION TAG data ID` and `NAME VERSION TAG background ID`
 * (TAG: its `tag` setting, `-` when unset), and `NAME VERSION create` and
 * `NAME VERSION destroy`. With -DSUPPRESS, its data verdict is suppress,
 * else continue. With its setting `pending_ms`, a data call answers
 * PH_PENDING and completes that many milliseconds later from a thread of
 * its own. Its background handler hangs (a minute) on the message whose id
 * is its setting `hang`. With -DFAIL_CREATE, create fails.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NAME
#define NAME "versioned"
#endif
#ifndef VERSION
#define VERSION "1"
#endif
#ifdef SUPPRESS
#define VERDICT PH_SUPPRESS
#else
#define VERDICT PH_CONTINUE
#endif

static const ph_host *host;
static FILE *out;
static char tag[64] = "-";
static long pending_ms;
static char hang[64];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const char *what, const ph_message *m) {
    pthread_mutex_lock(&lock);
    fprintf(out, "%s %s %s %s %s\n", NAME, VERSION, tag, what, m ? host->message_id(m) : "");
    fflush(out);
    pthread_mutex_unlock(&lock);
}

static void *create(const ph_host *h, const ph_config *c) {
#ifdef FAIL_CREATE
    (void)h;
    (void)c;
    return NULL;
#else
    host = h;
    out = fopen(h->config_get(c, "log"), "a");
    if (!out) return NULL;
    const char *given = h->config_get(c, "tag");
    if (given) snprintf(tag, sizeof tag, "%s", given);
    const char *ms = h->config_get(c, "pending_ms");
    pending_ms = ms ? strtol(ms, NULL, 10) : 0;
    const char *hang_on = h->config_get(c, "hang");
    if (hang_on) snprintf(hang, sizeof hang, "%s", hang_on);
    fprintf(out, "%s %s create\n", NAME, VERSION);
    fflush(out);
    return out;
#endif
}

static void destroy(void *self) {
    (void)self;
    fprintf(out, "%s %s destroy\n", NAME, VERSION);
    fclose(out);
}

static void *complete_later(void *p) {
    const ph_message *m = p;
    usleep((useconds_t)pending_ms * 1000);
    note("data", m);
    host->complete(host, m, VERDICT);
    return NULL;
}

static ph_verdict on_data(void *self, const ph_message *m) {
    (void)self;
    if (pending_ms > 0) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, complete_later, (void *)m) != 0) return PH_FAILED;
        pthread_detach(thread);
        return PH_PENDING;
    }
    note("data", m);
    return VERDICT;
}

static void on_background(void *self, const ph_message *m) {
    (void)self;
    note("background", m);
    if (hang[0] && strcmp(host->message_id(m), hang) == 0) sleep(60);
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = NAME, .version = VERSION, .create = create, .destroy = destroy,
    .on_data = on_data, .on_background = on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
