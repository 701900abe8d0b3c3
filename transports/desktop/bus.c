/*
 * bus.c: [bus thread] the plugin's one connection to the session bus
 * (sd-bus). It posts each queued request with Notify, replacing the
 * notification of the same collapse_key, and turns the server's signals into
 * what the host understands:
 *
 *   ActionInvoked(id, "default")    {"pushhost":"action","id":MSG,"action":"tap"}
 *   ActionInvoked(id, KEY)          {"pushhost":"action","id":MSG,"action":KEY}
 *   NotificationReplied(id, TEXT)   the same, with the reply action and "input":TEXT
 *                                   (KDE's inline replies)
 *   NotificationClosed(id, REASON)  a log line with the reason
 *
 * Problems are logged once, when they begin (no session bus, no
 * notification server, a server that fails), and once when they end, with
 * how many notifications were not shown meanwhile; the host goes on. The
 * thread reconnects when the bus comes back, and forgets the notifications
 * it posted when the server changes hands (ids start again); otherwise it
 * keeps them across restarts (posted.c), so a tap on one still finds it.
 */
#include "desktop.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define SERVER "org.freedesktop.Notifications"
#define SERVER_PATH "/org/freedesktop/Notifications"
#define SERVER_INTERFACE "org.freedesktop.Notifications"
/* How long one call to the server may take. */
#define CALL_TIMEOUT_USEC (5 * 1000 * 1000ULL)
/* How often the thread tries to reach a session bus that is not there. */
#define RECONNECT_MS 5000
/* After a call that timed out, how long no call is made (what comes
 * meanwhile is not shown): a hung server costs one timeout, not one each. */
#define QUIET_MS 30000

static uint64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

/* ---- Problems: logged when they begin and when they end ---------------- */

/* The bus or the server has problem; when it is a new one, says why. */
static void begin_problem(desktop *self, desktop_problem problem, const char *why) {
    if (self->problem == problem) return;
    self->problem = problem;
    transport_log(self->host, PH_LOG_ERROR, "%s", why);
}

static void shown(desktop *self) {
    if (self->problem == DESKTOP_OK) return;
    transport_log(self->host, PH_LOG_INFO, "notifications are shown again (%lu not shown meanwhile)", self->unshown);
    self->problem = DESKTOP_OK;
    self->unshown = 0;
}

/* Says that there is no session bus, and where sd-bus looked for it. */
static void no_bus(desktop *self, int error) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS"), *runtime = getenv("XDG_RUNTIME_DIR");
    char *why;
    if (address && *address)
        why = transport_format("no session bus (DBUS_SESSION_BUS_ADDRESS=%s: %s)", address, strerror(error));
    else if (runtime && *runtime)
        why = transport_format("no session bus (%s/bus, as DBUS_SESSION_BUS_ADDRESS is unset: %s)", runtime, strerror(error));
    else
        why = transport_format("no session bus (DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are unset)");
    char *line = why ? transport_format("%s: notifications are not shown until there is one", why) : NULL;
    begin_problem(self, DESKTOP_NO_BUS, line ? line : "no session bus");
    free(line);
    free(why);
}

/* Whether a call's error says nobody owns the server's name. */
static bool is_no_server(const sd_bus_error *e) {
    return sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
           sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

static void call_failed(desktop *self, const char *what, const sd_bus_error *e, int r) {
    const char *detail = e && e->message ? e->message : strerror(-r);
    bool timed_out = r == -ETIMEDOUT || sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY);
    char *why;
    if (is_no_server(e))
        why = transport_format("no notification server on the session bus (%s: %s): notifications are not shown until one starts",
                             SERVER, detail);
    else if (timed_out)
        why = transport_format("the notification server did not answer %s within %llu s: notifications are not shown "
                             "for %d s, then tried again", what, CALL_TIMEOUT_USEC / 1000000, QUIET_MS / 1000);
    else
        why = transport_format("the notification server failed %s: %s", what, detail);
    if (timed_out) self->quiet_until_ms = now_ms() + QUIET_MS;
    begin_problem(self, is_no_server(e) ? DESKTOP_NO_SERVER : DESKTOP_FAILING, why ? why : "the notification server failed");
    free(why);
}

/* ---- The connection --------------------------------------------------- */

static void drop_bus(desktop *self) {
    self->bus = sd_bus_flush_close_unref(self->bus);
    self->caps_known = false;
}

/* Called on any failure of the bus itself (not of one call). */
static void lost_bus(desktop *self, int r) {
    if (self->problem != DESKTOP_NO_BUS) {
        transport_log(self->host, PH_LOG_WARNING, "the session bus connection was lost (%s); reconnecting", strerror(-r));
        self->problem = DESKTOP_NO_BUS;
    }
    drop_bus(self);
}

/* Submits one action event to the host. */
static void submit_action(desktop *self, desktop_posted *p, const char *action, const char *input) {
    char *id = transport_json_quote(p->message_id), *key = transport_json_quote(action);
    char *text = input ? transport_json_quote(input) : NULL;
    char *json = id && key && (text || !input)
        ? transport_format("{\"pushhost\":\"action\",\"id\":%s,\"action\":%s%s%s}", id, key,
                         text ? ",\"input\":" : "", text ? text : "")
        : NULL;
    if (!json) {
        transport_log(self->host, PH_LOG_ERROR, "out of memory: %s on message %s is lost", action, p->message_id);
    } else if (!atomic_load(&self->submitting) ||
               self->intake->submit(self->host, json, strlen(json), NULL, NULL) != 0) {
        transport_log(self->host, PH_LOG_WARNING, "%s on message %s came while the host is stopping: it is dropped",
                    action, p->message_id);
    } else {
        transport_log(self->host, PH_LOG_INFO, "message %s: %s (notification %u)", p->message_id, action, p->id);
    }
    free(json);
    free(text);
    free(key);
    free(id);
}

static int on_action_invoked(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    uint32_t id;
    const char *key;
    if (sd_bus_message_read(m, "us", &id, &key) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (!p) return 0; /* another application's notification, or one this run forgot */
    if (strcmp(key, "inline-reply") == 0) return 0; /* the reply comes as NotificationReplied */
    submit_action(self, p, strcmp(key, "default") == 0 ? "tap" : key, NULL);
    return 0;
}

static int on_replied(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    uint32_t id;
    const char *text;
    if (sd_bus_message_read(m, "us", &id, &text) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (p && p->reply_action) submit_action(self, p, p->reply_action, text);
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
    if (sd_bus_message_read(m, "uu", &id, &reason) < 0) return 0;
    desktop_posted *p = desktop_posted_find(&self->posted, id);
    if (!p) return 0;
    transport_log(self->host, PH_LOG_INFO, "message %s: notification %u closed: %s (reason %u)", p->message_id, id,
                closed_reason(reason), reason);
    desktop_posted_forget(p);
    self->posted.dirty = true;
    return 0;
}

/* The server's name changed hands: its ids start again. The next call asks
 * who answers now (query_caps), and the ids of the one before are forgotten. */
static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)m;
    (void)e;
    desktop *self = userdata;
    self->caps_known = false;
    return 0;
}

/* Connects and subscribes to the server's signals; 0, or -1 (logged). */
static int connect_bus(desktop *self) {
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r >= 0) r = sd_bus_add_match(bus, NULL,
                                     "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                     "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" SERVER "'",
                                     on_owner_changed, self);
    if (r >= 0 && self->intake) {
        static const struct { const char *member; sd_bus_message_handler_t handler; } signals[] = {
            {"ActionInvoked", on_action_invoked}, {"NotificationReplied", on_replied}, {"NotificationClosed", on_closed}};
        for (size_t i = 0; r >= 0 && i < sizeof signals / sizeof signals[0]; i++)
            r = sd_bus_match_signal(bus, NULL, NULL, SERVER_PATH, SERVER_INTERFACE, signals[i].member,
                                    signals[i].handler, self);
    }
    if (r < 0) {
        sd_bus_flush_close_unref(bus);
        no_bus(self, -r);
        return -1;
    }
    self->bus = bus;
    return 0;
}

/* Asks the server what it supports; 0, or -1 (logged). */
static int query_caps(desktop *self) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    char **caps = NULL;
    int r = sd_bus_call_method(self->bus, SERVER, SERVER_PATH, SERVER_INTERFACE, "GetCapabilities", &error, &reply, "");
    if (r >= 0) r = sd_bus_message_read_strv(reply, &caps);
    if (r < 0) {
        if (sd_bus_error_is_set(&error)) call_failed(self, "to say what it supports", &error, r);
        else lost_bus(self, r);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return -1;
    }
    /* Who answers: the ids belong to that server. */
    sd_bus_creds *creds = NULL;
    const char *owner = NULL;
    if (sd_bus_get_name_creds(self->bus, SERVER, SD_BUS_CREDS_UNIQUE_NAME, &creds) >= 0 &&
        sd_bus_creds_get_unique_name(creds, &owner) >= 0)
        desktop_posted_adopt(self, owner);
    sd_bus_creds_unref(creds);
    self->markup = self->inline_reply = false;
    for (char **c = caps; c && *c; c++) {
        if (strcmp(*c, "body-markup") == 0) self->markup = true;
        if (strcmp(*c, "inline-reply") == 0) self->inline_reply = true;
        free(*c);
    }
    free(caps);
    sd_bus_message_unref(reply);
    self->caps_known = true;
    return 0;
}

/* ---- Posting ---------------------------------------------------------- */

/* A hint {KEY: <string>} when value is set. */
static int hint_text(sd_bus_message *m, const char *key, const char *value) {
    return value ? sd_bus_message_append(m, "{sv}", key, "s", value) : 0;
}

/* The Notify call for r; NULL (with *reply_action set or not) on failure. */
static int build_notify(desktop *self, const desktop_request *r, uint32_t replaces, sd_bus_message **out,
                        const char **reply_action) {
    char *icon = r->icon ? desktop_image_path(self, r->icon, "icon", r->message_id) : NULL;
    if (!icon && self->settings.icon) icon = strdup(self->settings.icon);
    char *image = r->image ? desktop_image_path(self, r->image, "image", r->message_id) : NULL;
    char *body = r->body && self->markup ? desktop_markup_escape(r->body) : NULL;
    const char *reply_title = NULL;
    sd_bus_message *m = NULL;
    int e = sd_bus_message_new_method_call(self->bus, &m, SERVER, SERVER_PATH, SERVER_INTERFACE, "Notify");
    if (e >= 0) e = sd_bus_message_append(m, "susss", self->settings.app_name, replaces, icon ? icon : "", r->title,
                                          body ? body : r->body ? r->body : "");
    if (e >= 0) e = sd_bus_message_open_container(m, 'a', "s");
    if (e >= 0) e = sd_bus_message_append(m, "ss", "default", "Open");
    for (size_t i = 0; e >= 0 && i < r->action_count; i++) {
        const desktop_action *a = &r->actions[i];
        if (!a->input) {
            e = sd_bus_message_append(m, "ss", a->id, a->title);
        } else if (self->inline_reply && !reply_title) {
            /* KDE's inline reply: one text field per notification. */
            e = sd_bus_message_append(m, "ss", "inline-reply", a->title);
            reply_title = a->title;
            *reply_action = a->id;
        }
        /* Elsewhere a reply action is left out: the server has no way to take its text. */
    }
    if (e >= 0) e = sd_bus_message_close_container(m);
    if (e >= 0) e = sd_bus_message_open_container(m, 'a', "{sv}");
    if (e >= 0) e = sd_bus_message_append(m, "{sv}", "urgency", "y", r->urgency);
    if (e >= 0) e = hint_text(m, "category", r->category);
    if (e >= 0) e = hint_text(m, "desktop-entry", self->settings.desktop_entry);
    if (e >= 0) e = hint_text(m, "image-path", image);
    if (e >= 0) e = hint_text(m, "x-kde-reply-placeholder-text", reply_title);
    if (e >= 0) e = sd_bus_message_close_container(m);
    if (e >= 0) e = sd_bus_message_append(m, "i", self->settings.expire_ms);
    free(body);
    free(image);
    free(icon);
    if (e < 0) {
        sd_bus_message_unref(m);
        return e;
    }
    *out = m;
    return 0;
}

/* Posts one request: connects and asks the server's capabilities first
 * when needed. Problems are counted and logged (once). */
static void post(desktop *self, const desktop_request *r) {
    if (self->quiet_until_ms && now_ms() < self->quiet_until_ms) {
        self->unshown++;
        return;
    }
    self->quiet_until_ms = 0;
    if ((!self->bus && connect_bus(self) < 0) || (!self->caps_known && query_caps(self) < 0)) {
        self->unshown++;
        return;
    }
    desktop_posted *previous = desktop_posted_by_key(&self->posted, r->collapse_key);
    uint32_t replaces = previous ? previous->id : 0;
    const char *reply_action = NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int e = build_notify(self, r, replaces, &call, &reply_action);
    if (e < 0) {
        transport_log(self->host, PH_LOG_ERROR, "message %s: cannot build the Notify call: %s", r->message_id, strerror(-e));
        return;
    }
    uint32_t id = 0;
    e = sd_bus_call(self->bus, call, CALL_TIMEOUT_USEC, &error, &reply);
    if (e >= 0) e = sd_bus_message_read(reply, "u", &id);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    if (e < 0) {
        char *what = transport_format("to show message %s", r->message_id);
        if (sd_bus_error_is_set(&error)) call_failed(self, what ? what : "to show a message", &error, e);
        else lost_bus(self, e);
        self->unshown++;
        free(what);
        sd_bus_error_free(&error);
        return;
    }
    shown(self);
    if (previous && previous->id != id) desktop_posted_forget(previous); /* the server made a new one */
    if (desktop_posted_note(&self->posted, id, r, reply_action) < 0)
        transport_log(self->host, PH_LOG_ERROR, "out of memory: a tap on message %s will not be known", r->message_id);
    transport_log(self->host, PH_LOG_DEBUG, "message %s: notification %u%s", r->message_id, id,
                replaces ? " (a replacement)" : "");
}

/* ---- The loop ---------------------------------------------------------- */

/* Handles what the bus has for us: replies came in order already; these
 * are the signals. */
static void process(desktop *self) {
    int r;
    while (self->bus && (r = sd_bus_process(self->bus, NULL)) != 0) {
        if (r < 0) lost_bus(self, r);
    }
}

/* Waits for a request, a message on the bus, or the time to try the bus
 * again. */
static void wait_for_work(desktop *self) {
    struct pollfd fds[2] = {{.fd = self->queue.wake, .events = POLLIN}, {.fd = -1}};
    int timeout = -1;
    if (self->bus) {
        fds[1].fd = sd_bus_get_fd(self->bus);
        int events = sd_bus_get_events(self->bus);
        fds[1].events = (short)(events > 0 ? events : POLLIN);
        uint64_t until;
        if (sd_bus_get_timeout(self->bus, &until) >= 0 && until != UINT64_MAX) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t now_usec = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
            timeout = until <= now_usec ? 0 : (int)((until - now_usec + 999) / 1000);
        }
    } else if (self->intake) {
        timeout = RECONNECT_MS; /* taps need a connection even while nothing is posted */
    }
    if (poll(fds, self->bus ? 2 : 1, timeout) == 0 && !self->bus && self->intake) {
        if (connect_bus(self) == 0) {
            query_caps(self);
            if (self->bus) shown(self);
        }
    }
}

void *desktop_bus_main(void *p) {
    desktop *self = p;
    /* Connect at once, so that a missing bus or server is said at start. */
    if (connect_bus(self) == 0) query_caps(self);
    for (;;) {
        bool quit;
        size_t dropped;
        desktop_request *list = desktop_queue_take(&self->queue, &quit, &dropped);
        if (dropped)
            transport_log(self->host, PH_LOG_WARNING, "%zu %s dropped: the notification server does not keep up", dropped,
                        dropped == 1 ? "notification was" : "notifications were");
        for (desktop_request *r = list, *next; r; r = next) {
            next = r->next;
            /* At shutdown, a server that is not there is not waited for again. */
            if (quit && self->problem != DESKTOP_OK) self->unshown++;
            else post(self, r);
            desktop_request_free(r);
        }
        process(self);
        desktop_posted_save(self);
        if (quit) break;
        wait_for_work(self);
    }
    if (self->unshown && self->problem != DESKTOP_OK)
        transport_log(self->host, PH_LOG_WARNING, "%lu %s not shown", self->unshown,
                    self->unshown == 1 ? "notification was" : "notifications were");
    drop_bus(self);
    desktop_posted_save(self);
    desktop_posted_free(&self->posted);
    desktop_image_cleanup(self);
    return NULL;
}
