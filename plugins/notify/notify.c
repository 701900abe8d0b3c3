/*
 * notify.c: a background plugin (on_background), called when the app is
 * in the background or no screen is visible: it "shows a notification" by
 * writing one human-readable line per message, with its buttons and its
 * picture when it has them. It also takes the actions no visible screen
 * takes (on_action): as a real notifier would bring the app up to the
 * message's screen, it says so (the host keeps the action for that screen
 * until it is visible).
 *
 * Shows: an optional setting with a default, falling back from the
 * notification part of a message to its data part, reading the elements of
 * an array by dotted path (notification.actions.0.title), and a plugin that
 * is not a screen taking actions.
 *
 * Setting:  path  file to append to (optional; default: stderr)
 * Output:   notify: <title>: <body>, or notify: <title> when there is no body
 *           (title/body from notification.*, else data.*; "(no title)"),
 *           followed by " [actions: <title>, <title>]" when the message has
 *           notification.actions (an action without a title shows its id)
 *           and " [image: <url>]" when it has notification.image:
 *             notify: Printer jammed: Floor 2 [actions: Open, Reply]
 *           notify: bring the app up for <action> on <id>   (on_action)
 */
#include "../common/sample.h" /* the plumbing: state, create/destroy, fields */

#include <stdio.h>

/* The setting is optional: without it, self->out stays NULL and the lines
 * go to stderr. */
static void *notify_create(const ph_host *host, const ph_config *config) {
    return sample_create(host, config, NULL);
}

/* Where the lines go: the `path` file, else stderr (which sample_destroy
 * never closes). */
static FILE *notify_out(const sample *self) { return self->out ? self->out : stderr; }

/* Ends the line and flushes it: others may read the file while the host runs. */
static void notify_end_line(const sample *self, FILE *out) {
    fputc('\n', out);
    if (fflush(out) != 0) self->host->log(self->host, PH_LOG_WARNING, "cannot write the notification line");
}

/* Writes " [actions: A, B]" for the message's notification.actions, nothing
 * when it has none. message_get reads an array element by its position in
 * the path, so no JSON parsing is needed here; it asks whether element i is
 * there before it reads the element's members. */
static void notify_write_actions(const ph_host *h, const ph_message *m, FILE *out) {
    char path[64];
    int i = 0;
    for (;; i++) {
        snprintf(path, sizeof path, "notification.actions.%d", i);
        if (!h->message_get(m, path)) break;
        snprintf(path, sizeof path, "notification.actions.%d.title", i);
        const char *title = sample_text(h->message_get(m, path));
        snprintf(path, sizeof path, "notification.actions.%d.id", i);
        const char *id = sample_text(h->message_get(m, path));
        fprintf(out, "%s%s", i == 0 ? " [actions: " : ", ", title ? title : id ? id : "?");
    }
    if (i > 0) fputc(']', out);
}

static void notify_on_background(void *p, const ph_message *m) {
    sample *self = p;
    const ph_host *h = self->host;
    FILE *out = notify_out(self);
    const char *title = sample_field(h, m, "title");
    const char *body = sample_field(h, m, "body");
    const char *image = sample_text(h->message_get(m, "notification.image"));

    if (!title) title = "(no title)";
    if (body)
        fprintf(out, "notify: %s: %s", title, body);
    else
        fprintf(out, "notify: %s", title);
    notify_write_actions(h, m, out);
    if (image) fprintf(out, " [image: %s]", image);
    notify_end_line(self, out);
}

/* A person acted on a notification of m and no visible screen takes it: a
 * notifier would bring the app up here. action is "tap" or the id of one of
 * m's actions; input (a reply's text) is not shown. */
static void notify_on_action(void *p, const ph_message *m, const char *action, const char *input) {
    (void)input;
    sample *self = p;
    FILE *out = notify_out(self);
    fprintf(out, "notify: bring the app up for %s on %s", action, self->host->message_id(m));
    notify_end_line(self, out);
}

/* It offers and uses no extension (ABI 1.2). */
static const char *const extensions[] = {NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "notify",
    .version = "1.0.0",
    .description = "Background handler: writes one line per message, like a notification.",
    .create = notify_create,
    .destroy = sample_destroy,
    .on_background = notify_on_background,
    .on_action = notify_on_action,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
