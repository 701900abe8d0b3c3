/*
 * screen.h: the logic shared by the sample screen plugins (issues.c,
 * supplies.c). A screen plugin: the host calls on_target
 * when this screen is the first visible one whose targets contain the
 * message's target, and on_mismatch when it is on top and no visible screen
 * matches. Each screen only reports what it got.
 *
 * Shows: how several plugins share code without sharing a library: the
 * functions here are static, so each plugin that includes this header gets
 * its own private copy, named after the plugin through SCREEN_NAME:
 *
 *   #define SCREEN_NAME "issues"
 *   #include "../screen/screen.h"
 *
 * It builds on ../common/sample.h (state, create/destroy, fields), so a
 * screen's descriptor uses sample_destroy as its destroy().
 *
 * Setting:  path  file to append to (optional; default: host->log at info)
 * Output:   <screen name> target <id> <title or ->     (on_target)
 *           <screen name> mismatch <id> <target or ->  (on_mismatch)
 *           (title is notification.title, else data.title)
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
    /* host->log takes finished text, not a format: build the line first. */
    int n = snprintf(NULL, 0, "%s %s %s %s", SCREEN_NAME, event, id, value);
    char *line = n < 0 ? NULL : malloc((size_t)n + 1);
    if (!line) {
        h->log(h, PH_LOG_ERROR, "out of memory");
        return;
    }
    snprintf(line, (size_t)n + 1, "%s %s %s %s", SCREEN_NAME, event, id, value);
    h->log(h, PH_LOG_INFO, line); /* the host copies what it keeps */
    free(line);
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

#endif /* SCREEN_H */
