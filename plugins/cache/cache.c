/*
 * cache.c: a data-stage plugin (on_data), the pushhost take on RxGcm's
 * "data stage decides": every message passes through here before any UI
 * handler, gets cached, and the verdict says whether the UI stage runs.
 *
 * Shows: a required setting (create() fails, saying why, when it is
 * missing), reading message values through the host, and the verdicts
 * PH_CONTINUE, PH_SUPPRESS and PH_FAILED.
 *
 * Setting:  path  file to append to (required)
 * Output:   one line per message: <id>\t<target or ->\t<title or ->
 *           (title is notification.title, else data.title)
 */
#include <pushhost.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cache {
    const ph_host *host; /* valid until destroy() returns */
    FILE *out;           /* the cache file, open for appending */
} cache;

/* Host strings are borrowed for the length of the call; this only reads
 * them. An empty string counts as missing. */
static const char *text_or_null(const char *s) { return s && *s ? s : NULL; }

/* The first of notification.<field> and data.<field> that has text. */
static const char *field(const ph_host *h, const ph_message *m, const char *notification_path,
                         const char *data_path) {
    const char *s = text_or_null(h->message_get(m, notification_path));
    return s ? s : text_or_null(h->message_get(m, data_path));
}

/* Writes one column; tabs and line breaks inside a value would break the
 * line format, so they become spaces. NULL is written as "-". */
static void put_column(FILE *out, const char *s) {
    if (!s) s = "-";
    for (; *s; s++) fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static void *cache_create(const ph_host *host, const ph_config *config) {
    const char *path = host->config_get(config, "path");
    if (!path || !*path) {
        host->log(host, PH_LOG_ERROR, "the `path` setting is required (the file to cache to)");
        return NULL;
    }
    cache *self = malloc(sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->out = fopen(path, "a");
    if (!self->out) {
        char msg[512]; /* a longer message is cut, which is fine for a log line */
        snprintf(msg, sizeof msg, "cannot open %s for appending: %s", path, strerror(errno));
        host->log(host, PH_LOG_ERROR, msg);
        free(self);
        return NULL;
    }
    return self;
}

static void cache_destroy(void *p) {
    cache *self = p;
    if (!self) return;
    if (self->out) fclose(self->out);
    free(self);
}

static ph_verdict cache_on_data(void *p, const ph_message *m) {
    cache *self = p;
    const ph_host *h = self->host;
    const char *title = field(h, m, "notification.title", "data.title");

    put_column(self->out, h->message_id(m));
    fputc('\t', self->out);
    put_column(self->out, text_or_null(h->message_target(m)));
    fputc('\t', self->out);
    put_column(self->out, title);
    fputc('\n', self->out);
    /* Flush each line: others may read the file while the host runs. */
    if (fflush(self->out) != 0 || ferror(self->out)) {
        clearerr(self->out);
        h->log(h, PH_LOG_ERROR, "cannot write to the cache file");
        return PH_FAILED; /* no UI stage, and the host reports the failure */
    }

    /* A data-only message (no notification part) without any title has
     * been cached and there is nothing to show: the data stage decides
     * that no UI handler runs. */
    const char *notification = h->message_get(m, "notification");
    int data_only = !notification || strcmp(notification, "{}") == 0;
    if (data_only && !title) return PH_SUPPRESS;
    return PH_CONTINUE;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "cache",
    .version = "1.0.0",
    .description = "Data stage: caches every message to a file; drops data-only ones "
                   "with nothing to show.",
    .create = cache_create,
    .destroy = cache_destroy,
    .on_data = cache_on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
