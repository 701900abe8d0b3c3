/*
 * bus.c: [bus thread] the plugin's one connection to the session bus
 * (sd-bus). It posts each request handed over (handoff.c) with Notify,
 * replacing the notification of the same collapse_key, and answers it:
 * shown, or why not. It follows who owns the server's name, so that taps.c
 * listens to that server alone.
 *
 * Problems are logged once, when they begin (no session bus, no
 * notification server, a server that fails), and once when they end, with
 * how many notifications were not shown meanwhile; each message not shown
 * is answered with its reason, and the host goes on. The thread reconnects
 * when the bus comes back, and forgets the notifications it posted when the
 * server changes hands (ids start again); otherwise it keeps them across
 * restarts (posted.c), so a tap on one still finds it.
 */
#include "desktop.h"
#include "../common/bus.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

/* How long one call to the server may take. */
#define CALL_TIMEOUT_USEC (5 * 1000 * 1000ULL)
/* How often the thread tries to reach a session bus that is not there. */
#define RECONNECT_MS 5000
/* After a call that timed out, how long no call is made (what comes
 * meanwhile is not shown): a hung server costs one timeout, not one each. */
#define QUIET_MS 30000
/* How often taps that found the host full are tried again. */
#define TAP_RETRY_MS 20
/* The posted notifications are written down at most this often: a burst
 * rewrites the file once a second, not once per notification. */
#define SAVE_MS 1000

/* Hands why to the caller (*failure), or frees it when the caller does not ask. */
static void give(char **failure, char *why) {
    if (failure) *failure = why;
    else free(why);
}

/* Whether a notification server is there to answer (the gauge server_available). */
static void available(desktop *self, bool yes) {
    transport_metric_set(self->metrics.table, self->metrics.server_available, yes ? 1 : 0);
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
static void no_bus(desktop *self, int error, char **failure) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS"), *runtime = getenv("XDG_RUNTIME_DIR");
    char *why;
    if (address && *address)
        why = transport_format("no session bus (DBUS_SESSION_BUS_ADDRESS=%s: %s)", address, strerror(error));
    else if (runtime && *runtime)
        why = transport_format("no session bus (%s/bus, as DBUS_SESSION_BUS_ADDRESS is unset: %s)", runtime, strerror(error));
    else
        why = transport_format("no session bus (DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are unset)");
    char *line = why ? transport_format("%s: notifications are not shown until there is one", why) : NULL;
    available(self, false);
    begin_problem(self, DESKTOP_NO_BUS, line ? line : "no session bus");
    free(line);
    give(failure, why);
}

/* Whether a call's error says nobody owns the server's name. */
static bool is_no_server(const sd_bus_error *e) {
    return sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
           sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

/* A call to the server failed with e: logs the problem when it is new
 * (what: "to show message m-1"), and gives why the call's message was not
 * shown (doing: "show it"). */
static void call_failed(desktop *self, const char *what, const char *doing, const sd_bus_error *e, int r,
                        char **failure) {
    const char *detail = e->message ? e->message : strerror(-r);
    bool timed_out = r == -ETIMEDOUT || sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY);
    char *line;
    if (is_no_server(e)) {
        give(failure, transport_format("no notification server on the session bus (%s: %s)", DESKTOP_SERVER, detail));
        line = transport_format("no notification server on the session bus (%s: %s): notifications are not shown "
                                "until one starts", DESKTOP_SERVER, detail);
    } else if (timed_out) {
        give(failure, transport_format("the notification server did not answer within %llu s",
                                       CALL_TIMEOUT_USEC / 1000000));
        line = transport_format("the notification server did not answer %s within %llu s: notifications are not "
                                "shown for %d s, then tried again", what, CALL_TIMEOUT_USEC / 1000000, QUIET_MS / 1000);
        self->quiet_until_ms = transport_now_ms() + QUIET_MS;
    } else {
        give(failure, transport_format("the notification server did not %s: %s: %s", doing, e->name, detail));
        line = transport_format("the notification server failed %s: %s", what, detail);
    }
    /* An error it answered with is an answer: it is there. */
    available(self, !is_no_server(e) && !timed_out);
    begin_problem(self, is_no_server(e) ? DESKTOP_NO_SERVER : DESKTOP_FAILING,
                  line ? line : "the notification server failed");
    free(line);
}

/* ---- The connection --------------------------------------------------- */

static void drop_bus(desktop *self) {
    desktop_taps_listen(self, NULL);
    self->bus = sd_bus_flush_close_unref(self->bus);
    self->caps_known = false;
}

/* Called on any failure of the bus itself (not of one call). */
static void lost_bus(desktop *self, int r, char **failure) {
    available(self, false);
    if (self->problem != DESKTOP_NO_BUS) {
        transport_log(self->host, PH_LOG_WARNING, "the session bus connection was lost (%s); reconnecting", strerror(-r));
        self->problem = DESKTOP_NO_BUS;
    }
    give(failure, transport_format("the session bus connection was lost (%s)", strerror(-r)));
    drop_bus(self);
}

/* The server's name is owner's now (a unique bus name; "" or NULL: nobody's):
 * its notifications are the ones known, and its signals the ones listened to. */
static void follow_server(desktop *self, const char *owner) {
    if (owner && !*owner) owner = NULL;
    if (owner) desktop_posted_adopt(self, owner);
    if (!self->intake) return;
    int r = desktop_taps_listen(self, owner);
    if (r < 0)
        transport_log(self->host, PH_LOG_ERROR, "cannot listen to the notification server %s: %s: taps are not taken",
                      owner, strerror(-r));
}

/* The server's name changed hands: its ids start again, and the signals
 * listened to are the new owner's. Only the bus itself says so: a signal
 * of that name from anyone else is ignored. */
static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    (void)e;
    desktop *self = userdata;
    const char *sender = sd_bus_message_get_sender(m), *name, *old, *owner;
    if (!sender || strcmp(sender, "org.freedesktop.DBus") != 0) {
        transport_log(self->host, PH_LOG_WARNING, "a NameOwnerChanged signal from %s is ignored: only the bus sends it",
                      sender ? sender : "an unknown sender");
        return 0;
    }
    if (sd_bus_message_read(m, "sss", &name, &old, &owner) < 0 || strcmp(name, DESKTOP_SERVER) != 0) return 0;
    self->caps_known = false; /* the next call asks what the new one supports */
    available(self, owner && *owner);
    follow_server(self, owner);
    return 0;
}

/* Connects and subscribes to the changes of the server's owner; 0, or -1 (logged). */
static int connect_bus(desktop *self, char **failure) {
    sd_bus *bus = NULL;
    int r = transport_bus_open(self->host, &bus);
    if (r >= 0) r = sd_bus_add_match(bus, NULL,
                                     "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                     "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" DESKTOP_SERVER "'",
                                     on_owner_changed, self);
    if (r < 0) {
        sd_bus_flush_close_unref(bus);
        no_bus(self, -r, failure);
        return -1;
    }
    self->bus = bus;
    return 0;
}

/* Asks the server what it supports, and who it is; 0, or -1 (logged). */
static int query_caps(desktop *self, char **failure) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    char **caps = NULL;
    int r = sd_bus_call_method(self->bus, DESKTOP_SERVER, DESKTOP_SERVER_PATH, DESKTOP_SERVER_INTERFACE,
                               "GetCapabilities", &error, &reply, "");
    if (r >= 0) r = sd_bus_message_read_strv(reply, &caps);
    if (r < 0) {
        if (sd_bus_error_is_set(&error)) call_failed(self, "to say what it supports", "say what it supports", &error, r, failure);
        else lost_bus(self, r, failure);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return -1;
    }
    sd_bus_creds *creds = NULL;
    const char *owner = NULL;
    if (sd_bus_get_name_creds(self->bus, DESKTOP_SERVER, SD_BUS_CREDS_UNIQUE_NAME, &creds) >= 0 &&
        sd_bus_creds_get_unique_name(creds, &owner) >= 0)
        follow_server(self, owner);
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
    available(self, true);
    return 0;
}

/* ---- Posting ---------------------------------------------------------- */

/* A hint {KEY: <string>} when value is set. */
static int hint_text(sd_bus_message *m, const char *key, const char *value) {
    return value ? sd_bus_message_append(m, "{sv}", key, "s", value) : 0;
}

/* The Notify call for r in *out; 0, or a negative errno. *reply_action:
 * the id of the action the server's typed reply stands for, if any. */
static int build_notify(desktop *self, const desktop_request *r, uint32_t replaces, sd_bus_message **out,
                        const char **reply_action) {
    char *icon = r->icon ? desktop_image_path(self, r->icon, "icon", r->message_id) : NULL;
    if (!icon && self->settings.icon) icon = strdup(self->settings.icon);
    char *image = r->image ? desktop_image_path(self, r->image, "image", r->message_id) : NULL;
    char *body = r->body && self->markup ? desktop_markup_escape(r->body) : NULL;
    const char *reply_title = NULL;
    sd_bus_message *m = NULL;
    int e = sd_bus_message_new_method_call(self->bus, &m, DESKTOP_SERVER, DESKTOP_SERVER_PATH, DESKTOP_SERVER_INTERFACE,
                                           "Notify");
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
 * when needed. Whether it was shown; when not, *failure says why (it may be
 * NULL: out of memory). Problems are counted and logged (once). */
static bool post(desktop *self, const desktop_request *r, char **failure) {
    if (self->quiet_until_ms && transport_now_ms() < self->quiet_until_ms) {
        self->unshown++;
        *failure = transport_format("not tried: the notification server did not answer within %llu s less than %d s ago",
                                    CALL_TIMEOUT_USEC / 1000000, QUIET_MS / 1000);
        return false;
    }
    self->quiet_until_ms = 0;
    if ((!self->bus && connect_bus(self, failure) < 0) || (!self->caps_known && query_caps(self, failure) < 0)) {
        self->unshown++;
        return false;
    }
    desktop_posted *previous = desktop_posted_by_key(&self->posted, r->collapse_key);
    uint32_t replaces = previous ? previous->id : 0;
    const char *reply_action = NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int e = build_notify(self, r, replaces, &call, &reply_action);
    if (e < 0) {
        transport_log(self->host, PH_LOG_ERROR, "message %s: cannot build the Notify call: %s", r->message_id, strerror(-e));
        *failure = transport_format("cannot build the Notify call: %s", strerror(-e));
        return false;
    }
    uint32_t id = 0;
    e = sd_bus_call(self->bus, call, CALL_TIMEOUT_USEC, &error, &reply);
    if (e >= 0) e = sd_bus_message_read(reply, "u", &id);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    if (e < 0) {
        char *what = transport_format("to show message %s", r->message_id);
        if (sd_bus_error_is_set(&error)) call_failed(self, what ? what : "to show a message", "show it", &error, e, failure);
        else lost_bus(self, e, failure);
        self->unshown++;
        free(what);
        sd_bus_error_free(&error);
        return false;
    }
    shown(self);
    available(self, true);
    transport_metric_add(self->metrics.table, self->metrics.posted, 1);
    if (replaces) transport_metric_add(self->metrics.table, self->metrics.replaced, 1);
    if (previous && previous->id != id) desktop_posted_forget(previous); /* the server made a new one */
    if (desktop_posted_note(&self->posted, id, r, reply_action) < 0)
        transport_log(self->host, PH_LOG_ERROR, "out of memory: a tap on message %s will not be known", r->message_id);
    transport_log(self->host, PH_LOG_DEBUG, "message %s: notification %u%s", r->message_id, id,
                  replaces ? " (a replacement)" : "");
    return true;
}

/* ---- The loop ---------------------------------------------------------- */

/* Writes the posted notifications down when they changed and the last
 * write is SAVE_MS old; otherwise, the milliseconds until it may be (-1:
 * nothing to write). */
static int save_posted(desktop *self) {
    if (!self->posted.dirty) return -1;
    uint64_t now = transport_now_ms();
    if (self->saved_ms && now < self->saved_ms + SAVE_MS) return (int)(self->saved_ms + SAVE_MS - now);
    desktop_posted_save(self);
    self->saved_ms = now;
    return -1;
}

/* Handles what the bus has for us: replies came in order already; these
 * are the signals. */
static void process(desktop *self) {
    int r;
    while (self->bus && (r = sd_bus_process(self->bus, NULL)) != 0) {
        if (r < 0) lost_bus(self, r, NULL);
    }
}

/* Waits for a request, a message on the bus, the time to try the bus
 * again, to offer the host the taps again (taps_wait), or to write the
 * posted notifications down (save_in ms, unless -1). */
static void wait_for_work(desktop *self, bool taps_wait, int save_in) {
    struct pollfd fds[2] = {{.fd = self->handoff.wake, .events = POLLIN}, {.fd = -1}};
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
    if (taps_wait && (timeout < 0 || timeout > TAP_RETRY_MS)) timeout = TAP_RETRY_MS;
    if (save_in >= 0 && (timeout < 0 || timeout > save_in)) timeout = save_in;
    if (poll(fds, self->bus ? 2 : 1, timeout) == 0 && !self->bus && self->intake) {
        if (connect_bus(self, NULL) == 0 && query_caps(self, NULL) == 0) shown(self);
    }
}

void *desktop_bus_main(void *p) {
    desktop *self = p;
    /* Connect at once, so that a missing bus or server is said at start. */
    if (connect_bus(self, NULL) == 0) query_caps(self, NULL);
    for (;;) {
        bool quit;
        desktop_request *r = desktop_handoff_take(&self->handoff, &quit);
        if (r) {
            char *failure = NULL;
            bool ok = post(self, r, &failure);
            desktop_handoff_answer(&self->handoff, r, ok, failure); /* r is on_background's again */
        }
        process(self);
        bool taps_wait = self->intake && desktop_taps_submit(self);
        int save_in = save_posted(self);
        if (quit) break;
        wait_for_work(self, taps_wait, save_in);
    }
    if (self->intake) desktop_taps_drop(self);
    if (self->unshown && self->problem != DESKTOP_OK)
        transport_log(self->host, PH_LOG_WARNING, "%lu %s not shown", self->unshown,
                      self->unshown == 1 ? "notification was" : "notifications were");
    drop_bus(self);
    desktop_posted_save(self);
    desktop_posted_free(&self->posted);
    desktop_fetch_cleanup(self);
    return NULL;
}
