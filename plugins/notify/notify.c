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
#include "../common/sample.h" /* the plumbing: state, create/destroy, fields */

#include <stdio.h>

/* The setting is optional: without it, self->out stays NULL and the lines
 * go to stderr. */
static void *notify_create(const ph_host *host, const ph_config *config) {
    return sample_create(host, config, NULL);
}

static void notify_on_background(void *p, const ph_message *m) {
    sample *self = p;
    const ph_host *h = self->host;
    FILE *out = self->out ? self->out : stderr; /* sample_destroy never closes stderr */
    const char *title = sample_field(h, m, "title");
    const char *body = sample_field(h, m, "body");

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
    .destroy = sample_destroy,
    .on_background = notify_on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
