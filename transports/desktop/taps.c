/*
 * taps.c: [bus thread] the notification server's signals, turned into what
 * the host understands:
 *
 *   ActionInvoked(id, "default")    {"pushhost":"action","id":MSG,"action":"tap"}
 *   ActionInvoked(id, KEY)          {"pushhost":"action","id":MSG,"action":KEY}
 *   NotificationReplied(id, TEXT)   the same, with the reply action and "input":TEXT
 *                                   (KDE's inline replies)
 *   NotificationClosed(id, REASON)  a log line with the reason
 *
 * Only the server that owns org.freedesktop.Notifications is listened to:
 * the match rules name its unique bus name as the sender (bus.c moves them
 * when the name changes hands), and each signal's sender is checked again,
 * so another client of the session bus cannot tap a notification.
 *
 * An action event is a host event the plugin made itself
 * (PH_RECORD_HOST_EVENT). It is submitted without waiting: the dispatch
 * thread may itself be waiting for this thread (handoff.c), so an event the
 * host has no room for waits here, in order, and is offered again.
 */
#include "desktop.h"
#include "../common/json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

/* At most this many taps wait for room in the host; past it the oldest is dropped. */
#define TAPS_WAITING_CAP 1024

static void free_tap(desktop_tap *t) {
    free(t->json);
    free(t->message_id);
    free(t->action);
    free(t);
}

/* Whether m comes from the server listened to; says so when not. */
static bool from_server(desktop *self, sd_bus_message *m) {
    const char *sender = sd_bus_message_get_sender(m);
    if (sender && self->server && strcmp(sender, self->server) == 0) return true;
    transport_log(self->host, PH_LOG_WARNING, "a %s signal from %s is ignored: it is not the notification server (%s)",
                  sd_bus_message_get_member(m), sender ? sender : "an unknown sender",
                  self->server ? self->server : "none is known");
    return false;
}

/* Hands the host one action event; 0 taken, 1 no room yet, -1 stopping. */
static int submit(desktop *self, const char *json) {
    return self->intake->submit_record(self->host, json, strlen(json), PH_RECORD_HOST_EVENT | PH_RECORD_NO_WAIT, NULL, NULL);
}

bool desktop_taps_submit(desktop *self) {
    while (self->taps) {
        desktop_tap *t = self->taps;
        int answer = atomic_load(&self->submitting) ? submit(self, t->json) : -1;
        if (answer == 1) return true;
        if (answer == 0)
            transport_log(self->host, PH_LOG_INFO, "message %s: %s (notification %u)", t->message_id, t->action,
                          t->notification);
        else
            transport_log(self->host, PH_LOG_WARNING, "%s on message %s came while the host is stopping: it is dropped",
                          t->action, t->message_id);
        self->taps = t->next;
        if (!self->taps) self->last_tap = NULL;
        self->tap_count--;
        free_tap(t);
    }
    return false;
}

void desktop_taps_drop(desktop *self) {
    atomic_store(&self->submitting, false);
    desktop_taps_submit(self);
}

/* Puts the action event of p in line for the host (counted as received). */
static void queue_tap(desktop *self, desktop_posted *p, const char *action, const char *input) {
    transport_metric_add(self->metrics.table, self->metrics.actions, 1);
    char *id = json_quote(p->message_id), *key = json_quote(action);
    char *text = input ? json_quote(input) : NULL;
    desktop_tap *t = calloc(1, sizeof *t);
    if (t && id && key && (text || !input)) {
        t->json = transport_format("{\"pushhost\":\"action\",\"id\":%s,\"action\":%s%s%s}", id, key,
                                   text ? ",\"input\":" : "", text ? text : "");
        t->message_id = strdup(p->message_id);
        t->action = strdup(action);
        t->notification = p->id;
    }
    free(text);
    free(key);
    free(id);
    if (!t || !t->json || !t->message_id || !t->action) {
        transport_log(self->host, PH_LOG_ERROR, "out of memory: %s on message %s is lost", action, p->message_id);
        if (t) free_tap(t);
        return;
    }
    if (self->tap_count >= TAPS_WAITING_CAP) {
        desktop_tap *oldest = self->taps;
        transport_log(self->host, PH_LOG_WARNING, "%s on message %s is dropped: %d taps wait for room in the host already",
                      oldest->action, oldest->message_id, TAPS_WAITING_CAP);
        self->taps = oldest->next;
        self->tap_count--;
        free_tap(oldest);
    }
    if (self->taps) self->last_tap->next = t;
    else self->taps = t;
    self->last_tap = t;
    self->tap_count++;
}

/* ---- The signals ------------------------------------------------------ */

static int on_action_invoked(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    uint32_t id;
    const char *key;
    if (!from_server(self, m) || sd_bus_message_read(m, "us", &id, &key) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (!p) return 0; /* another application's notification, or one this run forgot */
    if (strcmp(key, "inline-reply") == 0) return 0; /* the reply comes as NotificationReplied */
    queue_tap(self, p, strcmp(key, "default") == 0 ? "tap" : key, NULL);
    return 0;
}

static int on_replied(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    uint32_t id;
    const char *text;
    if (!from_server(self, m) || sd_bus_message_read(m, "us", &id, &text) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (p && p->reply_action) queue_tap(self, p, p->reply_action, text);
    return 0;
}

static const char *closed_reason(uint32_t reason) {
    switch (reason) {
    case 1: return "it expired";
    case 2: return "dismissed by the user";
    case 3: return "closed by a CloseNotification call";
    default: return "for an undefined reason";
    }
}

static int on_closed(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    uint32_t id, reason;
    if (!from_server(self, m) || sd_bus_message_read(m, "uu", &id, &reason) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (!p) return 0;
    transport_log(self->host, PH_LOG_INFO, "message %s: notification %u closed: %s (reason %u)", p->message_id, id,
                  closed_reason(reason), reason);
    desktop_posted_forget(p);
    self->posted.dirty = true;
    return 0;
}

int desktop_taps_listen(desktop *self, const char *server) {
    if (server && self->server && strcmp(server, self->server) == 0) return 0;
    for (size_t i = 0; i < sizeof self->signals / sizeof self->signals[0]; i++)
        self->signals[i] = sd_bus_slot_unref(self->signals[i]);
    free(self->server);
    self->server = NULL;
    if (!server || !self->bus) return 0;
    if (!(self->server = strdup(server))) return -ENOMEM;
    static const struct { const char *member; sd_bus_message_handler_t handler; } signals[] = {
        {"ActionInvoked", on_action_invoked}, {"NotificationReplied", on_replied}, {"NotificationClosed", on_closed}};
    /* Installed without waiting (this may run inside a signal's handler);
     * a match the bus refuses closes the connection, which is then made again. */
    int r = 0;
    for (size_t i = 0; r >= 0 && i < sizeof signals / sizeof signals[0]; i++)
        r = sd_bus_match_signal_async(self->bus, &self->signals[i], server, DESKTOP_SERVER_PATH, DESKTOP_SERVER_INTERFACE,
                                      signals[i].member, signals[i].handler, NULL, self);
    if (r < 0) desktop_taps_listen(self, NULL);
    return r;
}
