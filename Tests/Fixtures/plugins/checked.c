/* A plugin for `pushhost plugins --check`, the dry run: a background plugin
 * named NAME (-DNAME='"checked"'; "checked" by default), and a source too
 * with -DSOURCE. With -DSMALL_INTERCEPTOR it offers a ph.interceptor/1
 * table whose struct_size (4) does not cover intercept, which the host
 * refuses once the plugin is created.
 *
 * create logs `create pid PID ppid PPID` (host->log, info), then:
 * - with -DREQUIRED='"KEY"', refuses unless the setting KEY is set: it logs
 *   `the KEY setting is required` (error) and returns NULL; when it is set,
 *   it logs `KEY=VALUE` (info);
 * - the setting `fault`: `null` logs `told to refuse by its fault setting`
 *   (error) and returns NULL, `segv` writes through NULL, `hang` never
 *   returns;
 * - the setting `log`: a file it appends `create` to (created if missing),
 *   and `start`, `stop` and `destroy` from those calls;
 * - the setting `state=true`: it writes `kept` into the file `kept` of its
 *   state folder (ph.state/1) and logs `state FOLDER`;
 * - the setting `print`: it prints that text and a newline on standard
 *   output (printf, not flushed).
 * start logs `source started` (info) and stop `source stopped`.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noop.h"
#include "process.h"

#ifndef NAME
#define NAME "checked"
#endif

typedef struct checked {
    const ph_host *host;
    FILE *out;
} checked;

static void say(const ph_host *host, ph_log_level level, const char *format, const char *a, const char *b) {
    char line[4200];
    snprintf(line, sizeof line, format, a, b);
    host->log(host, level, line);
}

static void note(checked *self, const char *event) {
    if (!self->out) return;
    fprintf(self->out, "%s\n", event);
    fflush(self->out);
}

static void *create(const ph_host *host, const ph_config *config) {
    char pid[32], ppid[32];
    snprintf(pid, sizeof pid, "%ld", process_id());
    snprintf(ppid, sizeof ppid, "%ld", parent_id());
    say(host, PH_LOG_INFO, "create pid %s ppid %s", pid, ppid);
#ifdef REQUIRED
    const char *required = host->config_get(config, REQUIRED);
    if (!required) {
        say(host, PH_LOG_ERROR, "the %s setting is required%s", REQUIRED, "");
        return NULL;
    }
    say(host, PH_LOG_INFO, "%s=%s", REQUIRED, required);
#endif
    const char *fault = host->config_get(config, "fault");
    if (fault && strcmp(fault, "null") == 0) {
        say(host, PH_LOG_ERROR, "told to refuse by its fault setting%s%s", "", "");
        return NULL;
    }
    if (fault && strcmp(fault, "segv") == 0) *(volatile int *)0 = 1;
    if (fault && strcmp(fault, "hang") == 0) for (;;) pause();
    checked *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    const char *log = host->config_get(config, "log");
    if (log) self->out = fopen(log, "a");
    note(self, "create");
    const char *print = host->config_get(config, "print");
    if (print) printf("%s\n", print);
    const char *state = host->config_get(config, "state");
    if (state && strcmp(state, "true") == 0) {
        const ph_state *table = host->get_extension(host, PH_EXT_STATE);
        const char *folder = table ? table->directory(host) : NULL;
        if (folder) {
            char path[4200];
            snprintf(path, sizeof path, "%s/kept", folder);
            FILE *kept = fopen(path, "w");
            if (kept) {
                fputs("kept\n", kept);
                fclose(kept);
            }
        }
        say(host, PH_LOG_INFO, "state %s%s", folder ? folder : "(none)", "");
    }
    return self;
}

static void destroy(void *p) {
    checked *self = p;
    note(self, "destroy");
    if (self->out) fclose(self->out);
    free(self);
}

#ifdef SOURCE
static int start(void *p) {
    checked *self = p;
    note(self, "start");
    self->host->log(self->host, PH_LOG_INFO, "source started");
    return 0;
}

static void stop(void *p) {
    checked *self = p;
    note(self, "stop");
    self->host->log(self->host, PH_LOG_INFO, "source stopped");
}

static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};
#endif

#ifdef SMALL_INTERCEPTOR
static void intercept(void *self, ph_chain *chain) { (void)self; (void)chain; }
static const ph_interceptor interceptor = {.struct_size = 4, .intercept = intercept};
#endif

#if defined(SOURCE) || defined(SMALL_INTERCEPTOR)
static const void *get_extension(void *self, const char *id) {
    (void)self;
#ifdef SOURCE
    if (strcmp(id, PH_EXT_SOURCE) == 0) return &source;
#endif
#ifdef SMALL_INTERCEPTOR
    if (strcmp(id, PH_EXT_INTERCEPTOR) == 0) return &interceptor;
#endif
    return NULL;
}
#endif

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = NAME, .version = "1.0.0", .description = "A plugin for the dry run.",
    .create = create, .destroy = destroy, .on_background = on_message,
#if defined(SOURCE) || defined(SMALL_INTERCEPTOR)
    .get_extension = get_extension,
#endif
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
