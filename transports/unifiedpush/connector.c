/*
 * connector.c: [bus thread] the object a distributor calls, at
 * /org/unifiedpush/Connector: org.unifiedpush.Connector2 (arguments in a
 * variant dictionary) and org.unifiedpush.Connector1 (plain arguments, which
 * KUnifiedPush still sends). Both lead to the same three handlers.
 *
 * A call with a token that is not ours is logged and ignored, as the
 * specification asks. A message is decrypted here, and only a message that
 * decrypts is handed to the host, as a message: never as a host event, so
 * one that holds a host event is rejected by the host. One that does not
 * decrypt, or that is longer than 4096 bytes, is rejected with the reason in
 * the log.
 *
 * A call is answered once its work is done: a push is answered as delivered
 * only when the host has taken its record (waiting while the host is full,
 * which holds the distributor back), and with an error when the host is
 * stopping, so that the distributor keeps the push and sends it again. No
 * push is answered as delivered and then dropped.
 */
#include "unifiedpush.h"
#include "../common/json.h"

#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define CONNECTOR_PATH "/org/unifiedpush/Connector"

/* What a distributor's call carries, whichever version it came in. */
typedef struct delivery {
    const char *token;
    const char *endpoint;
    const char *id;
    const uint8_t *message;
    size_t size;
    bool has_message;
} delivery;

/* Whether token is ours; logs the ones that are not. */
static bool ours(unifiedpush *self, const char *method, const char *token) {
    if (token && strcmp(token, self->token) == 0) return true;
    transport_log(self->host, PH_LOG_WARNING, "%s with an unknown token \"%s\": ignored", method, token ? token : "");
    return false;
}

/* What a handler did with a call: done (taken, or ignored or rejected for
 * good), or not taken because the host is stopping (the caller may send it
 * again). */
typedef enum outcome { DONE, NOT_TAKEN } outcome;

/* Hands the host json, waiting while the host is full: with
 * PH_RECORD_HOST_EVENT only for an event the plugin made itself (an
 * endpoint, its removal), never for a push, whose bytes anyone who knows the
 * endpoint chooses; the host rejects a push that holds a host event. */
static bool submit(unifiedpush *self, const char *json, uint32_t flags, const char *what) {
    int r = !atomic_load(&self->submitting) ? -1
        : self->intake->submit_record(self->host, json, strlen(json), flags, NULL, NULL);
    if (r != 0)
        transport_log(self->host, PH_LOG_WARNING, "%s came while the host is stopping: not taken, the distributor is told so", what);
    return r == 0;
}

static outcome new_endpoint(unifiedpush *self, const delivery *d) {
    if (!ours(self, "NewEndpoint", d->token)) return DONE;
    const char *e = d->endpoint ? d->endpoint : "";
    if ((strncmp(e, "https://", 8) != 0 && strncmp(e, "http://", 7) != 0) || strlen(e) > 1000) {
        transport_log(self->host, PH_LOG_WARNING, "NewEndpoint with \"%s\", which is not an http(s) URL of at most 1000 bytes: ignored", e);
        return DONE;
    }
    /* The keys go with the endpoint: together they are the subscription a
     * server needs (pushhost token --subscription). */
    char *quoted = json_quote(e);
    char *p256dh = webpush_base64url(self->keys.public_key, sizeof self->keys.public_key);
    char *auth = webpush_base64url(self->keys.auth, sizeof self->keys.auth);
    char *json = quoted && p256dh && auth
        ? transport_format("{\"pushhost\":\"token\",\"token\":%s,\"keys\":{\"p256dh\":\"%s\",\"auth\":\"%s\"}}", quoted,
                    p256dh, auth)
        : NULL;
    free(auth);
    free(p256dh);
    outcome result = DONE;
    if (json) {
        transport_log(self->host, PH_LOG_INFO, "endpoint %s", e);
        if (submit(self, json, PH_RECORD_HOST_EVENT, "an endpoint"))
            transport_metric_add(self->metrics.table, self->metrics.endpoint_changes, 1);
        else
            result = NOT_TAKEN;
    } else {
        transport_log(self->host, PH_LOG_ERROR, "out of memory: the endpoint %s is not taken", e);
        result = NOT_TAKEN;
    }
    free(json);
    free(quoted);
    return result;
}

static outcome unregistered(unifiedpush *self, const delivery *d) {
    if (!ours(self, "Unregistered", d->token)) return DONE;
    transport_log(self->host, PH_LOG_WARNING, "the distributor unregistered this connector: the token is removed; registering again");
    transport_metric_set(self->metrics.table, self->metrics.registered, 0);
    bool taken = submit(self, "{\"pushhost\":\"token\",\"token\":null}", PH_RECORD_HOST_EVENT, "the token's removal");
    self->backoff_ms = 0;
    up_retry_later(self);
    return taken ? DONE : NOT_TAKEN;
}

static outcome message(unifiedpush *self, const delivery *d) {
    if (!ours(self, "Message", d->token)) return DONE;
    const char *id = d->id && *d->id ? d->id : "(no id)";
    if (!d->has_message || d->size == 0 || d->size > UP_MESSAGE_MAX) {
        transport_log(self->host, PH_LOG_ERROR, "message %s rejected: %zu bytes, not 1 to %d", id, d->size, UP_MESSAGE_MAX);
        return DONE;
    }
    uint8_t *plaintext;
    size_t length;
    const char *why;
    if (webpush_decrypt(&self->keys, d->message, d->size, &plaintext, &length, &why) != 0) {
        transport_metric_add(self->metrics.table, self->metrics.decrypt_failures, 1);
        transport_log(self->host, PH_LOG_ERROR, "message %s rejected: %s", id, why);
        return DONE;
    }
    outcome result = DONE;
    if (memchr(plaintext, '\0', length)) {
        transport_log(self->host, PH_LOG_ERROR, "message %s rejected: its plaintext holds a NUL byte", id);
    } else {
        transport_log(self->host, PH_LOG_DEBUG, "message %s: %zu bytes decrypted", id, length);
        char *what = transport_format("message %s", id);
        if (submit(self, (const char *)plaintext, 0, what ? what : "a message"))
            transport_metric_add(self->metrics.table, self->metrics.messages, 1);
        else
            result = NOT_TAKEN;
        free(what);
    }
    free(plaintext);
    return result;
}

/* Reads Connector2's a{sv} into d (strings and the byte array stay in m). */
static int read_dictionary(sd_bus_message *m, delivery *d) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    while (r > 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key, *contents;
        char type;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0 || (r = sd_bus_message_peek_type(m, &type, &contents)) < 0) break;
        const char **text = strcmp(key, "token") == 0 ? &d->token : strcmp(key, "endpoint") == 0 ? &d->endpoint
                          : strcmp(key, "id") == 0 ? &d->id : NULL;
        if (text && strcmp(contents, "s") == 0) {
            r = sd_bus_message_read(m, "v", "s", text);
        } else if (strcmp(key, "message") == 0 && strcmp(contents, "ay") == 0) {
            const void *bytes = NULL;
            if ((r = sd_bus_message_enter_container(m, 'v', "ay")) >= 0 &&
                (r = sd_bus_message_read_array(m, 'y', &bytes, &d->size)) >= 0)
                r = sd_bus_message_exit_container(m);
            d->message = bytes;
            d->has_message = r >= 0;
        } else {
            r = sd_bus_message_skip(m, "v");
        }
        if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0) break;
        r = 1;
    }
    if (r >= 0) r = sd_bus_message_exit_container(m);
    return r;
}

typedef outcome (*handler)(unifiedpush *, const delivery *);

/* The error a call not taken is answered with: the distributor keeps what it
 * sent and may send it again. */
static int not_taken(sd_bus_error *e) {
    return sd_bus_error_set(e, SD_BUS_ERROR_FAILED, "the host is stopping: not taken, send it again later");
}

/* Connector2: each method reads its dictionary, does the work, then answers
 * (a message with its id). */
static int v2(sd_bus_message *m, void *userdata, sd_bus_error *e, handler handle) {
    delivery d = {0};
    if (read_dictionary(m, &d) < 0)
        return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "arguments are a{sv} as org.unifiedpush.Connector2 says");
    if (handle(userdata, &d) == NOT_TAKEN) return not_taken(e);
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(m, &reply);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r >= 0 && handle == message && d.id) r = sd_bus_message_append(reply, "{sv}", "id", "s", d.id);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

static int v2_message(sd_bus_message *m, void *u, sd_bus_error *e) { return v2(m, u, e, message); }
static int v2_new_endpoint(sd_bus_message *m, void *u, sd_bus_error *e) { return v2(m, u, e, new_endpoint); }
static int v2_unregistered(sd_bus_message *m, void *u, sd_bus_error *e) { return v2(m, u, e, unregistered); }

/* Connector1: plain arguments, an empty answer once the work is done. */
static int v1(sd_bus_message *m, void *userdata, sd_bus_error *e, const delivery *d, handler handle) {
    return handle(userdata, d) == NOT_TAKEN ? not_taken(e) : sd_bus_reply_method_return(m, "");
}

static int v1_message(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    delivery d = {0};
    const void *bytes = NULL;
    int r = sd_bus_message_read(m, "s", &d.token);
    if (r >= 0) r = sd_bus_message_read_array(m, 'y', &bytes, &d.size);
    if (r >= 0) r = sd_bus_message_read(m, "s", &d.id);
    if (r < 0) return r;
    d.message = bytes;
    d.has_message = true;
    return v1(m, userdata, e, &d, message);
}

static int v1_new_endpoint(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    delivery d = {0};
    int r = sd_bus_message_read(m, "ss", &d.token, &d.endpoint);
    return r < 0 ? r : v1(m, userdata, e, &d, new_endpoint);
}

static int v1_unregistered(sd_bus_message *m, void *userdata, sd_bus_error *e) {
    delivery d = {0};
    int r = sd_bus_message_read(m, "s", &d.token);
    return r < 0 ? r : v1(m, userdata, e, &d, unregistered);
}

static const sd_bus_vtable connector2[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Message", "a{sv}", "a{sv}", v2_message, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("NewEndpoint", "a{sv}", "a{sv}", v2_new_endpoint, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Unregistered", "a{sv}", "a{sv}", v2_unregistered, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable connector1[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Message", "says", "", v1_message, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("NewEndpoint", "ss", "", v1_new_endpoint, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Unregistered", "s", "", v1_unregistered, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

int up_connector_serve(unifiedpush *self) {
    int r = sd_bus_add_object_vtable(self->bus, NULL, CONNECTOR_PATH, "org.unifiedpush.Connector2", connector2, self);
    if (r >= 0) r = sd_bus_add_object_vtable(self->bus, NULL, CONNECTOR_PATH, "org.unifiedpush.Connector1", connector1, self);
    return r < 0 ? r : 0;
}
