/*
 * screen.h: the logic shared by the sample screen plugins (issues.c,
 * supplies.c). A screen plugin: the host calls on_target
 * when this screen is the first visible one whose targets contain the
 * message's target, and on_mismatch when it is on top and no visible screen
 * matches. A screen that fills in on_action (issues does, supplies does not)
 * also gets what a person did with the notification of a message aimed at
 * it: a tap, or one of the message's notification.actions, with the text
 * typed into a reply. Each screen only reports what it got.
 *
 * Shows: how several plugins share code without sharing a library: the
 * functions here are static, so each plugin that includes this header gets
 * its own private copy, named after the plugin through SCREEN_NAME:
 *
 *   #define SCREEN_NAME "issues"
 *   #include "../screen/screen.h"
 *
 * It builds on ../common/sample.h (state, create/destroy, fields, quoting,
 * log lines), so a screen's descriptor uses sample_destroy as its destroy().
 *
 * Setting:  path  file to append to (optional; default: host->log at info)
 * Output:   <screen name> target <id> <title or ->     (on_target)
 *           <screen name> mismatch <id> <target or ->  (on_mismatch)
 *           <screen name> action <id> <action>         (on_action: tap or an action id)
 *           <screen name> action <id> <action> "<input>"  (on_action: a reply)
 *           (title is notification.title, else data.title; the input is
 *           quoted as a JSON string: a quote or a newline in it is escaped)
 */
#ifndef SCREEN_H
#define SCREEN_H

#ifndef SCREEN_NAME
#error "define SCREEN_NAME (the plugin's name, a string literal) before including screen.h"
#endif

#include "../common/sample.h"

#include <stdio.h>
#include <stdlib.h>

/* s when it has text, else "-". Host strings are borrowed for the length
 * of the call: use them, don't keep them. */
static const char *screen_or_dash(const char *s) { return sample_text(s) ? s : "-"; }

/* Writes "<SCREEN_NAME> <event> <id> <value>" to the file or the host log. */
static void screen_report(sample *self, const char *event, const char *id, const char *value) {
    const ph_host *h = self->host;
    if (self->out) {
        fprintf(self->out, "%s %s %s %s\n", SCREEN_NAME, event, id, value);
        /* Flush each line: others may read the file while the host runs. */
        if (fflush(self->out) != 0) h->log(h, PH_LOG_WARNING, "cannot write the report line");
        return;
    }
    sample_log(h, PH_LOG_INFO, "%s %s %s %s", SCREEN_NAME, event, id, value);
}

/* The setting is optional: without it, self->out stays NULL and the
 * reports go to host->log. */
static void *screen_create(const ph_host *host, const ph_config *config) {
    return sample_create(host, config, NULL);
}

/* The message is aimed at this screen: show its title. */
static void screen_on_target(void *p, const ph_message *m) {
    sample *self = p;
    const ph_host *h = self->host;
    screen_report(self, "target", h->message_id(m), screen_or_dash(sample_field(h, m, "title")));
}

/* This screen is on top but the message is aimed elsewhere (or nowhere). */
static void screen_on_mismatch(void *p, const ph_message *m) {
    sample *self = p;
    const ph_host *h = self->host;
    screen_report(self, "mismatch", h->message_id(m), screen_or_dash(h->message_target(m)));
}

/* A person acted on the notification of a message aimed at this screen:
 * action is "tap" for the notification itself, else the id of one of its
 * notification.actions; input is the text of a reply, else NULL. All three
 * are borrowed for the call. Inline, as in sample.h, so that a screen without
 * on_action (supplies) draws no warning for leaving it unused. */
static inline void screen_on_action(void *p, const ph_message *m, const char *action,
                                    const char *input) {
    sample *self = p;
    const ph_host *h = self->host;
    if (!input) {
        screen_report(self, "action", h->message_id(m), action);
        return;
    }
    /* "<action> <quoted input>", built first: screen_report takes one value. */
    char *quoted = json_quote(input);
    char *value = quoted ? sample_format("%s %s", action, quoted) : NULL;
    if (!value) {
        h->log(h, PH_LOG_ERROR, "out of memory");
        free(quoted);
        return;
    }
    screen_report(self, "action", h->message_id(m), value);
    free(value);
    free(quoted);
}

#endif /* SCREEN_H */
