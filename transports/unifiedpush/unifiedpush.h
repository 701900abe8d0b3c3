/*
 * unifiedpush.h: the parts of the unifiedpush plugin, shared by its files.
 *
 * The plugin is a UnifiedPush connector on the session bus: it owns the
 * application id, serves org.unifiedpush.Connector2 (and version 1) at
 * /org/unifiedpush/Connector, registers with a distributor, and hands the
 * host what the distributor delivers:
 *
 *   NewEndpoint   a token event: the endpoint is the token a server pushes to,
 *                 with the keys it encrypts to
 *   Message       the push, decrypted (RFC 8291), as a message (never a host event)
 *   Unregistered  a token event that removes the token; the connector
 *                 registers again
 *
 *   plugin.c       the descriptor, the settings, create/destroy, the source role
 *   keys.c         the key pair, the auth secret and the connection token, kept in a file
 *   session.c      [bus thread] the connection, the name, registration and its retries
 *   connector.c    [bus thread] the Connector methods the distributor calls
 *   webpush.c      RFC 8291 decryption (libcrypto)
 *   ../common      formats, log lines (a problem once while it lasts), JSON quoting, the clock, metrics
 *
 * Its own metrics (ph.metrics/1, registered in create; none when the host
 * lacks it), served as unifiedpush_NAME: the counters messages_total (pushes
 * decrypted and handed to the host), decrypt_failures_total (pushes that did
 * not decrypt), endpoint_changes_total (endpoints the distributor gave,
 * NewEndpoint, handed to the host as tokens), and the gauge registered (1
 * while registered with a distributor).
 */
#ifndef UNIFIEDPUSH_H
#define UNIFIEDPUSH_H

#include "../common/clock.h"
#include "../common/metrics.h"
#include "../common/text.h"
#include "webpush.h"

#include <pushhost.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A push message is at most this long (the UnifiedPush specification). */
#define UP_MESSAGE_MAX 4096
/* A connection token is at most this long. */
#define UP_TOKEN_MAX 100

typedef struct up_settings {
    char *app_id;      /* the connector's bus name, reverse DNS */
    char *description; /* shown by the distributor */
    char *distributor; /* the distributor's bus name, or NULL: the first one found */
} up_settings;

/* The plugin's own metrics: each NULL when the host has no ph.metrics/1
 * (or refused it), and then never counted. Set in create, then only read. */
typedef struct up_metrics {
    const ph_metrics *table;
    ph_metric *messages, *decrypt_failures, *endpoint_changes;
    ph_metric *registered; /* a gauge */
} up_metrics;

typedef struct unifiedpush {
    const ph_host *host;     /* valid until destroy() returns */
    const ph_intake *intake; /* the host's */
    up_settings settings;
    up_metrics metrics;
    char *keys_path;         /* the key file in the plugin's state folder */
    webpush_keys keys;
    char token[UP_TOKEN_MAX + 1]; /* the connection token, in the key file too */
    pthread_t thread;
    bool thread_running;
    int wake;                /* eventfd: stop() asks the bus thread to end */
    atomic_bool submitting;  /* between start and stop */

    /* [bus thread] from here on */
    struct sd_bus *bus;
    uint64_t next_attempt_ms; /* when to try registering again (CLOCK_MONOTONIC), 0: now */
    unsigned backoff_ms;
    char *said;               /* the last problem logged, so that a repeated one is not */
} unifiedpush;

/* keys.c: loads the key file at self->keys_path, or makes it (0600). 0, or -1 (logged). */
int up_keys_load(unifiedpush *self);

/* session.c */
void *up_session_main(void *self);
/* Registration failed or is gone: tries again after the backoff. */
void up_retry_later(unifiedpush *self);

/* connector.c: the object at /org/unifiedpush/Connector. 0, or a negative errno. */
int up_connector_serve(unifiedpush *self);

#endif
