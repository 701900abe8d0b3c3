/*
 * notify.c: a background plugin (on_background), called when the app is
 * in the background or no screen is visible: it "shows a notification" by
 * writing one human-readable line per message.
 *
 * Shows: an optional setting with a default, and falling back from the
 * notification part of a message to its data part.
 *
 * Setting:  path  file to append to (optional; default: stderr)
 * Output:   notify: <title>: <body>, or notify: <title> when there is no body
 *           (title/body from notification.*, else data.*; "(no title)")
 */
#include <pushhost.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct notify {
    const ph_host *host; /* valid until destroy() returns */
    FILE *out;           /* the `path` file, or NULL for stderr */
} notify;

/* The first of notification.<field> and data.<field> that has text, else
 * NULL. The result is borrowed from the message: use it, don't keep it. */
static const char *field(const ph_host *h, const ph_message *m, const char *notification_path,
                         const char *data_path) {
    const char *s = h->message_get(m, notification_path);
    if (s && *s) return s;
    s = h->message_get(m, data_path);
    return s && *s ? s : NULL;
}

static void *notify_create(const ph_host *host, const ph_config *config) {
    notify *self = malloc(sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->out = NULL;
    const char *path = host->config_get(config, "path");
    if (path && *path) {
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

static void notify_destroy(void *p) {
    notify *self = p;
    if (!self) return;
    if (self->out) fclose(self->out); /* never stderr: that one is not ours */
    free(self);
}

static void notify_on_background(void *p, const ph_message *m) {
    notify *self = p;
    const ph_host *h = self->host;
    FILE *out = self->out ? self->out : stderr;
    const char *title = field(h, m, "notification.title", "data.title");
    const char *body = field(h, m, "notification.body", "data.body");

    if (!title) title = "(no title)";
    if (body)
        fprintf(out, "notify: %s: %s\n", title, body);
    else
        fprintf(out, "notify: %s\n", title);
    /* Flush each line: others may read the file while the host runs. */
    if (fflush(out) != 0) h->log(h, PH_LOG_WARNING, "cannot write the notification line");
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "notify",
    .version = "1.0.0",
    .description = "Background handler: writes one line per message, like a notification.",
    .create = notify_create,
    .destroy = notify_destroy,
    .on_background = notify_on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
