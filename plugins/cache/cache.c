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
#include "../common/sample.h" /* the plumbing: state, create/destroy, fields */

#include <stdio.h>
#include <string.h>

/* Writes one column; tabs and line breaks inside a value would break the
 * line format, so they become spaces. NULL is written as "-". */
static void put_column(FILE *out, const char *s) {
    if (!s) s = "-";
    for (; *s; s++) fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

/* The setting is required: without it create() fails, saying why. */
static void *cache_create(const ph_host *host, const ph_config *config) {
    return sample_create(host, config, "the `path` setting is required (the file to cache to)");
}

static ph_verdict cache_on_data(void *p, const ph_message *m) {
    sample *self = p;
    const ph_host *h = self->host;
    const char *title = sample_field(h, m, "title");

    put_column(self->out, h->message_id(m));
    fputc('\t', self->out);
    put_column(self->out, sample_text(h->message_target(m)));
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

/* It offers and uses no extension (ABI 1.2). */
static const char *const extensions[] = {NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "cache",
    .version = "1.0.0",
    .description = "Data stage: caches every message to a file; drops data-only ones "
                   "with nothing to show.",
    .create = cache_create,
    .destroy = sample_destroy,
    .on_data = cache_on_data,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
