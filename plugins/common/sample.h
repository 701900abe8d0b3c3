/*
 * sample.h: plumbing shared by the sample plugins in this folder (cache,
 * notify, token-log, fifo-source, dedupe, enrich, and the screens through
 * ../screen/screen.h), written
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

/* json_quote: a string as a JSON string literal, the transports' own. */
#include "../../transports/common/json.h"

#include <errno.h>
#include <stdarg.h>
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

/* printf into a new string of exactly the right length (free it), or NULL
 * when out of memory. */
__attribute__((format(printf, 1, 0)))
static inline char *sample_vformat(const char *format, va_list args) {
    va_list measure;
    va_copy(measure, args);
    int n = vsnprintf(NULL, 0, format, measure);
    va_end(measure);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text) vsnprintf(text, (size_t)n + 1, format, args);
    return text;
}

/* sample_vformat with the arguments in line. */
__attribute__((format(printf, 1, 2)))
static inline char *sample_format(const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = sample_vformat(format, args);
    va_end(args);
    return text;
}

/* host->log with a printf format. host->log takes finished text, so the
 * line is built first, whole (host strings in it may be long); the host
 * copies what it keeps. */
__attribute__((format(printf, 3, 4)))
static inline void sample_log(const ph_host *host, ph_log_level level, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = sample_vformat(format, args);
    va_end(args);
    host->log(host, text ? level : PH_LOG_ERROR, text ? text : "out of memory");
    free(text);
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
            sample_log(host, PH_LOG_ERROR, "cannot open %s for appending: %s", path, strerror(errno));
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
