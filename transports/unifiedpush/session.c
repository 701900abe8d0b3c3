/*
 * session.c: [bus thread] the connector's life on the session bus: it
 * connects, owns the application id, serves the Connector object, and
 * registers with a distributor (Distributor2's Register, else version 1's),
 * at start and whenever the distributor unregisters it.
 *
 * What goes wrong is logged once while it lasts, and tried again after a
 * backoff (1 s, doubling, at most 60 s): no session bus, the application id
 * owned by another process, no distributor, a refused registration (with the
 * distributor's reason).
 */
#include "unifiedpush.h"
#include "../common/bus.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define DISTRIBUTOR_PREFIX "org.unifiedpush.Distributor."
#define DISTRIBUTOR_PATH "/org/unifiedpush/Distributor"
#define CALL_TIMEOUT_USEC (10 * 1000 * 1000ULL)
#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 60000

void up_retry_later(unifiedpush *self) {
    self->backoff_ms = self->backoff_ms ? self->backoff_ms * 2 : BACKOFF_FIRST_MS;
    if (self->backoff_ms > BACKOFF_MAX_MS) self->backoff_ms = BACKOFF_MAX_MS;
    self->next_attempt_ms = transport_now_ms() + self->backoff_ms;
}

/* Whether the connector is registered with a distributor (the gauge registered). */
static void registered(unifiedpush *self, bool yes) {
    transport_metric_set(self->metrics.table, self->metrics.registered, yes ? 1 : 0);
}

/* Off the bus, no distributor reaches the connector: not registered. */
static void drop_bus(unifiedpush *self) {
    self->bus = sd_bus_flush_close_unref(self->bus);
    registered(self, false);
}

/* Connects, owns the application id and serves the Connector; 0, or -1 (said). */
static int connect_bus(unifiedpush *self) {
    int r = transport_bus_open(self->host, &self->bus);
    if (r < 0) {
        char *why = transport_format("no session bus (%s): retrying", strerror(-r));
        transport_log_once(self->host, PH_LOG_ERROR, &self->said, why ? why : "no session bus");
        free(why);
        self->bus = NULL;
        return -1;
    }
    r = up_connector_serve(self);
    if (r >= 0) r = sd_bus_request_name(self->bus, self->settings.app_id, 0);
    if (r < 0) {
        char *why = r == -EEXIST || r == -EALREADY
            ? transport_format("the application id %s is owned by another process: retrying", self->settings.app_id)
            : transport_format("cannot own the application id %s: %s", self->settings.app_id, strerror(-r));
        transport_log_once(self->host, PH_LOG_ERROR, &self->said, why ? why : "cannot own the application id");
        free(why);
        drop_bus(self);
        return -1;
    }
    return 0;
}

/* The distributor to register with: the setting, else the first name (in
 * byte order) that starts with DISTRIBUTOR_PREFIX. NULL (said) when none. */
static char *find_distributor(unifiedpush *self) {
    char **names = NULL;
    int r = sd_bus_list_names(self->bus, &names, NULL);
    char *chosen = NULL;
    for (char **n = names; r >= 0 && n && *n; n++) {
        bool wanted = self->settings.distributor ? strcmp(*n, self->settings.distributor) == 0
                                                 : strncmp(*n, DISTRIBUTOR_PREFIX, strlen(DISTRIBUTOR_PREFIX)) == 0;
        if (wanted && (!chosen || strcmp(*n, chosen) < 0)) chosen = *n;
    }
    char *result = chosen ? strdup(chosen) : NULL;
    for (char **n = names; n && *n; n++) free(*n);
    free(names);
    if (!result) {
        char *why = self->settings.distributor
            ? transport_format("the distributor %s is not on the session bus: retrying", self->settings.distributor)
            : transport_format("no UnifiedPush distributor on the session bus (no name starts with " DISTRIBUTOR_PREFIX
                        "): retrying");
        transport_log_once(self->host, PH_LOG_ERROR, &self->said, why ? why : "no distributor");
        free(why);
    }
    return result;
}

/* Reads Register's answer; success, or *reason (borrowed from reply). */
static bool read_answer(sd_bus_message *reply, const char **reason) {
    const char *success = NULL;
    *reason = NULL;
    int r = sd_bus_message_enter_container(reply, 'a', "{sv}");
    while (r > 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
        const char *key, *contents;
        char type;
        if (sd_bus_message_read(reply, "s", &key) < 0 || sd_bus_message_peek_type(reply, &type, &contents) < 0) break;
        if (strcmp(contents, "s") == 0 && strcmp(key, "success") == 0) r = sd_bus_message_read(reply, "v", "s", &success);
        else if (strcmp(contents, "s") == 0 && strcmp(key, "reason") == 0) r = sd_bus_message_read(reply, "v", "s", reason);
        else r = sd_bus_message_skip(reply, "v");
        if (r < 0 || sd_bus_message_exit_container(reply) < 0) break;
        r = 1;
    }
    return success && strcmp(success, "REGISTRATION_SUCCEEDED") == 0;
}

/* Asks distributor to register us, with Distributor2, else Distributor1. */
static void register_with(unifiedpush *self, const char *distributor) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    const char *reason = NULL, *result = NULL;
    bool accepted = false;
    int r = sd_bus_message_new_method_call(self->bus, &call, distributor, DISTRIBUTOR_PATH,
                                           "org.unifiedpush.Distributor2", "Register");
    if (r >= 0) r = sd_bus_message_append(call, "a{sv}", 3, "service", "s", self->settings.app_id, "token", "s",
                                          self->token, "description", "s", self->settings.description);
    if (r >= 0) r = sd_bus_call(self->bus, call, CALL_TIMEOUT_USEC, &error, &reply);
    if (r >= 0) {
        accepted = read_answer(reply, &reason);
    } else if (sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_INTERFACE)) {
        /* A distributor of version 1 (KUnifiedPush before Connector2). */
        sd_bus_error_free(&error);
        r = sd_bus_call_method(self->bus, distributor, DISTRIBUTOR_PATH, "org.unifiedpush.Distributor1", "Register",
                               &error, &reply, "sss", self->settings.app_id, self->token, self->settings.description);
        if (r >= 0 && sd_bus_message_read(reply, "ss", &result, &reason) >= 0)
            accepted = strcmp(result, "REGISTRATION_SUCCEEDED") == 0 || strcmp(result, "NEW_ENDPOINT") == 0;
    }
    if (r < 0) {
        char *why = transport_format("registration with %s failed: %s: retrying", distributor,
                              sd_bus_error_is_set(&error) ? error.message : strerror(-r));
        transport_log_once(self->host, PH_LOG_ERROR, &self->said, why ? why : "registration failed");
        free(why);
        registered(self, false);
        up_retry_later(self);
    } else if (!accepted) {
        char *why = transport_format("%s refused the registration: %s: retrying", distributor,
                              reason && *reason ? reason : "no reason given");
        transport_log_once(self->host, PH_LOG_ERROR, &self->said, why ? why : "registration refused");
        free(why);
        registered(self, false);
        up_retry_later(self);
    } else {
        free(self->said); /* a problem logged before is over */
        self->said = NULL;
        transport_log(self->host, PH_LOG_INFO, "registered with %s as %s", distributor, self->settings.app_id);
        registered(self, true);
        self->backoff_ms = 0;
        self->next_attempt_ms = UINT64_MAX; /* until the distributor unregisters us */
    }
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
}

/* One attempt at what is missing: the bus, then the registration. */
static void attempt(unifiedpush *self) {
    if (!self->bus && connect_bus(self) < 0) {
        up_retry_later(self);
        return;
    }
    char *distributor = find_distributor(self);
    if (!distributor) {
        up_retry_later(self);
        return;
    }
    register_with(self, distributor);
    free(distributor);
}

/* Waits for the bus, stop(), or the next attempt; false once stop() asked. */
static bool wait_for_work(unifiedpush *self) {
    struct pollfd fds[2] = {{.fd = self->wake, .events = POLLIN}, {.fd = -1}};
    uint64_t until = self->next_attempt_ms;
    if (self->bus) {
        fds[1].fd = sd_bus_get_fd(self->bus);
        int events = sd_bus_get_events(self->bus);
        fds[1].events = (short)(events > 0 ? events : POLLIN);
        uint64_t bus_until;
        if (sd_bus_get_timeout(self->bus, &bus_until) >= 0 && bus_until != UINT64_MAX && bus_until / 1000 < until)
            until = bus_until / 1000;
    }
    uint64_t now = transport_now_ms();
    int timeout = until == UINT64_MAX ? -1 : until <= now ? 0 : (int)(until - now > 60000 ? 60000 : until - now);
    int n = poll(fds, self->bus ? 2 : 1, timeout);
    return !(n > 0 && fds[0].revents);
}

void *up_session_main(void *p) {
    unifiedpush *self = p;
    for (;;) {
        if (self->next_attempt_ms != UINT64_MAX && transport_now_ms() >= self->next_attempt_ms) attempt(self);
        int r;
        while (self->bus && (r = sd_bus_process(self->bus, NULL)) != 0) {
            if (r < 0) {
                char *why = transport_format("the session bus connection was lost (%s): reconnecting", strerror(-r));
                transport_log_once(self->host, PH_LOG_WARNING, &self->said, why ? why : "the session bus connection was lost");
                free(why);
                drop_bus(self);
                self->backoff_ms = 0;
                up_retry_later(self);
            }
        }
        if (!wait_for_work(self)) break;
    }
    drop_bus(self);
    return NULL;
}
