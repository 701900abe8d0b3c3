/*
 * sample.h: plumbing shared by the sample plugins in this folder (cache,
 * notify, token-log, and the screens through ../screen/screen.h), written
 * once so that each sample shows only what is particular to its role. It is
 * not part of the ABI: a real plugin would normally be one file, with
 * whichever of these few lines it needs copied into it.
 *
 * Shows: how plugins share code without sharing a library. Every function
 * here is static, so each plugin that includes this header gets its own
 * private copy and still exports nothing but ph_plugin_entry:
 *
 *   #include "../common/sample.h"
 *
 * (They are also inline; that only keeps -Wall quiet about the ones a plugin
 * does not use.)
 *
 * Setting:  path  file to append to (required or optional, as each plugin says)
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <pushhost.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state of one instance of any sample plugin. */
typedef struct sample {
    const ph_host *host; /* valid until destroy() returns */
    FILE *out;           /* the `path` file, open for appending, or NULL without one */
} sample;

/* s when it has text, else NULL: an empty string counts as missing. Host
 * strings are borrowed for the length of the call: use them, don't keep them. */
static inline const char *sample_text(const char *s) { return s && *s ? s : NULL; }

/* The first of notification.<name> and data.<name> that has text, else NULL,
 * for a field name such as "title". Borrowed from the message, like any
 * host string. */
static inline const char *sample_field(const ph_host *h, const ph_message *m, const char *name) {
    char path[80];
    int n = snprintf(path, sizeof path, "notification.%s", name);
    if (n < 0 || (size_t)n >= sizeof path) return NULL; /* no field has a name that long */
    const char *s = sample_text(h->message_get(m, path));
    if (s) return s;
    snprintf(path, sizeof path, "data.%s", name); /* shorter: it fits */
    return sample_text(h->message_get(m, path));
}

/* The create() every sample shares: makes the state and opens the `path`
 * setting for appending. required is NULL when `path` is optional (out is
 * then NULL without it), else the error to log when it is unset or empty.
 * On failure it says why through host->log and returns NULL, as the ABI
 * asks of create(). */
static inline sample *sample_create(const ph_host *host, const ph_config *config,
                                    const char *required) {
    const char *path = sample_text(host->config_get(config, "path"));
    if (!path && required) {
        host->log(host, PH_LOG_ERROR, required);
        return NULL;
    }
    sample *self = malloc(sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->out = NULL;
    if (path) {
        self->out = fopen(path, "a");
        if (!self->out) {
            char msg[512]; /* a longer message is cut, which is fine for a log line */
            snprintf(msg, sizeof msg, "cannot open %s for appending: %s", path, strerror(errno));
            host->log(host, PH_LOG_ERROR, msg);
            free(self);
            return NULL;
        }
    }
    return self;
}

/* The destroy() every sample shares; fits ph_plugin.destroy as it is. Closes
 * only the file create() opened (never stderr or the like: not ours). */
static inline void sample_destroy(void *p) {
    sample *self = p;
    if (!self) return;
    if (self->out) fclose(self->out);
    free(self);
}

#endif /* SAMPLE_H */
