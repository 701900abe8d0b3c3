/*
 * request.c: [dispatch thread] turns a message into what the bus thread
 * posts. Every field is copied: the message's strings are borrowed only
 * until on_background returns.
 *
 * title, body, icon, image and category come from notification.*, else
 * data.* (a data message may carry them there); the actions from
 * notification.actions (the host gathers them there from every shape).
 * The urgency follows the priority: a high-priority message (every message
 * with a notification, unless it says otherwise) is normal, a
 * normal-priority one is low, and data.urgency ("low", "normal",
 * "critical") overrides both.
 */
#include "desktop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s when it has text, else NULL. */
static const char *text_or_null(const char *s) { return s && *s ? s : NULL; }

/* notification.NAME, else data.NAME, else NULL; borrowed from m. */
static const char *field(const ph_host *host, const ph_message *m, const char *name) {
    char path[64];
    snprintf(path, sizeof path, "notification.%s", name);
    const char *s = text_or_null(host->message_get(m, path));
    if (s) return s;
    snprintf(path, sizeof path, "data.%s", name);
    return text_or_null(host->message_get(m, path));
}

/* A copy of s, or NULL for NULL; *failed is set when out of memory. */
static char *copy(const char *s, bool *failed) {
    if (!s) return NULL;
    char *c = strdup(s);
    if (!c) *failed = true;
    return c;
}

static uint8_t urgency(const ph_host *host, const ph_message *m) {
    const char *stated = text_or_null(host->message_get(m, "data.urgency"));
    if (stated) {
        if (strcmp(stated, "low") == 0) return 0;
        if (strcmp(stated, "normal") == 0) return 1;
        if (strcmp(stated, "critical") == 0) return 2;
    }
    const char *priority = host->message_get(m, "priority");
    return priority && strcmp(priority, "high") == 0 ? 1 : 0;
}

/* notification.actions.N.{id,title,input}, in order, at most
 * DESKTOP_MAX_ACTIONS; an action without an id is left out. */
static void take_actions(const ph_host *host, const ph_message *m, desktop_request *r, bool *failed) {
    for (size_t i = 0; r->action_count < DESKTOP_MAX_ACTIONS; i++) {
        char path[64];
        snprintf(path, sizeof path, "notification.actions.%zu", i);
        if (!host->message_get(m, path)) return;
        snprintf(path, sizeof path, "notification.actions.%zu.id", i);
        const char *id = text_or_null(host->message_get(m, path));
        if (!id) continue;
        desktop_action *a = &r->actions[r->action_count++];
        a->id = copy(id, failed);
        snprintf(path, sizeof path, "notification.actions.%zu.title", i);
        const char *title = text_or_null(host->message_get(m, path));
        a->title = copy(title ? title : id, failed);
        snprintf(path, sizeof path, "notification.actions.%zu.input", i);
        const char *input = host->message_get(m, path);
        a->input = input && strcmp(input, "true") == 0;
    }
}

int desktop_request_make(const desktop *self, const ph_message *m, desktop_request **out) {
    const ph_host *host = self->host;
    *out = NULL;
    const char *title = field(host, m, "title"), *body = field(host, m, "body");
    if (!title && !body) return 1; /* nothing to show: the caller says so */
    desktop_request *r = calloc(1, sizeof *r);
    if (!r) {
        host->log(host, PH_LOG_ERROR, "out of memory: a notification is not shown");
        return -1;
    }
    bool failed = false;
    r->message_id = copy(host->message_id(m), &failed);
    /* A notification needs a summary: the body stands in for a missing title. */
    r->title = copy(title ? title : body, &failed);
    r->body = copy(title ? body : NULL, &failed);
    r->icon = copy(field(host, m, "icon"), &failed);
    r->image = copy(field(host, m, "image"), &failed);
    r->category = copy(field(host, m, "category"), &failed);
    r->collapse_key = copy(text_or_null(host->message_get(m, "collapse_key")), &failed);
    r->urgency = urgency(host, m);
    take_actions(host, m, r, &failed);
    if (failed) {
        host->log(host, PH_LOG_ERROR, "out of memory: a notification is not shown");
        desktop_request_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void desktop_request_free(desktop_request *r) {
    if (!r) return;
    free(r->message_id);
    free(r->title);
    free(r->body);
    free(r->icon);
    free(r->image);
    free(r->category);
    free(r->collapse_key);
    free(r->failure);
    for (size_t i = 0; i < r->action_count; i++) {
        free(r->actions[i].id);
        free(r->actions[i].title);
    }
    free(r);
}
