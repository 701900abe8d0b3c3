/*
 * connection.c: the connection to the NATS servers, kept by libnats: it
 * reconnects forever, waiting longer after each failed round (0.1 s doubling
 * to 5 s), and buffers the Acks sent meanwhile. Each change of state is
 * logged once: lost, connected again; and, at start, that no server answers.
 */
#include "jetstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *jetstream_error_text(natsStatus status) {
    const char *last = nats_GetLastError(NULL);
    if (!last || !*last) return natsStatus_GetText(status);
    /* libnats starts its text with where it was made: "(conn.c:4212): ". */
    const char *after = last[0] == '(' ? strstr(last, "): ") : NULL;
    return after ? after + 3 : last;
}

/* The URL of the server the connection is on, or the first setting. */
static void server_url(jetstream_plugin *self, natsConnection *connection, char *out, size_t size) {
    if (natsConnection_GetConnectedUrl(connection, out, size) != NATS_OK || !*out)
        snprintf(out, size, "%s", self->settings.servers[0]);
}

static void on_connected(natsConnection *connection, void *closure) {
    jetstream_plugin *self = closure;
    server_url(self, connection, self->url, sizeof self->url);
    atomic_store(&self->connected, true);
    if (!atomic_load(&self->closing)) transport_metric_set(self->metrics.table, self->metrics.connected, 1);
    transport_log(self->host, PH_LOG_INFO, "connected to %s", self->url);
    pthread_mutex_lock(&self->lock);
    pthread_cond_broadcast(&self->changed);
    pthread_mutex_unlock(&self->lock);
}

static void on_disconnected(natsConnection *connection, void *closure) {
    jetstream_plugin *self = closure;
    (void)connection;
    atomic_store(&self->connected, false);
    if (!atomic_load(&self->closing)) transport_metric_set(self->metrics.table, self->metrics.connected, 0);
    if (atomic_load(&self->submitting))
        transport_log(self->host, PH_LOG_WARNING, "lost the connection to %s: reconnecting", self->url);
}

static void on_reconnected(natsConnection *connection, void *closure) {
    jetstream_plugin *self = closure;
    server_url(self, connection, self->url, sizeof self->url);
    atomic_store(&self->connected, true);
    if (!atomic_load(&self->closing)) transport_metric_set(self->metrics.table, self->metrics.connected, 1);
    transport_log(self->host, PH_LOG_INFO, "connected again to %s", self->url);
    /* The sweeper (sweep.c), waiting for the connection, reads the advisories at once. */
    pthread_mutex_lock(&self->lock);
    pthread_cond_broadcast(&self->changed);
    pthread_mutex_unlock(&self->lock);
}

/* Waits 0.1 s after the first failed round over the servers, doubling to 5 s. */
static int64_t reconnect_delay(natsConnection *connection, int attempts, void *closure) {
    (void)connection;
    (void)closure;
    int64_t delay = 100;
    for (int i = 1; i < attempts && delay < 5000; i++) delay *= 2;
    return delay < 5000 ? delay : 5000;
}

static natsStatus make_options(jetstream_plugin *self) {
    jetstream_settings *s = &self->settings;
    natsOptions *o = NULL;
    natsStatus status = natsOptions_Create(&o);
    if (status == NATS_OK) status = natsOptions_SetServers(o, (const char **)s->servers, transport_list_count(s->servers));
    if (status == NATS_OK) status = natsOptions_SetName(o, "pushhost");
    if (status == NATS_OK) status = natsOptions_SetTimeout(o, 2000);
    if (status == NATS_OK) status = natsOptions_SetMaxReconnect(o, -1);
    if (status == NATS_OK) status = natsOptions_SetCustomReconnectDelay(o, reconnect_delay, NULL);
    if (status == NATS_OK) status = natsOptions_SetDisconnectedCB(o, on_disconnected, self);
    if (status == NATS_OK) status = natsOptions_SetReconnectedCB(o, on_reconnected, self);
    if (status == NATS_OK && s->credentials) status = natsOptions_SetUserCredentialsFromFiles(o, s->credentials, NULL);
    if (status == NATS_OK && s->user) status = natsOptions_SetUserInfo(o, s->user, s->password);
    if (status == NATS_OK && s->nkey_seed_file) status = natsOptions_SetNKeyFromSeed(o, s->nkey_public, s->nkey_seed_file);
    if (status == NATS_OK && (s->tls_ca || s->tls_cert)) status = natsOptions_SetSecure(o, true);
    if (status == NATS_OK && s->tls_ca) status = natsOptions_LoadCATrustedCertificates(o, s->tls_ca);
    if (status == NATS_OK && s->tls_cert) status = natsOptions_LoadCertificatesChain(o, s->tls_cert, s->tls_key);
    if (status == NATS_OK && s->tls_hostname) status = natsOptions_SetExpectedHostname(o, s->tls_hostname);
    if (status != NATS_OK) natsOptions_Destroy(o);
    else self->options = o;
    return status;
}

int jetstream_connect(jetstream_plugin *self) {
    natsStatus status = make_options(self);
    if (status != NATS_OK) {
        transport_log(self->host, PH_LOG_ERROR, "cannot set up the connection: %s", jetstream_error_text(status));
        return -1;
    }
    /* A first try says why it fails: only when no server answers does the
     * plugin go on and keep trying; bad credentials or a refusal end the start. */
    status = natsConnection_Connect(&self->connection, self->options);
    /* libnats 3.4 leaves out a signature whose first byte is 0 (fixed in
     * 3.8): one login in 256 with an NKey or a .creds file is refused. A new
     * try signs the server's new challenge; a key that is wrong fails again. */
    const bool signs = self->settings.nkey_seed_file || self->settings.credentials;
    for (int again = 0; signs && status == NATS_CONNECTION_AUTH_FAILED && again < 2; again++)
        status = natsConnection_Connect(&self->connection, self->options);
    if (status == NATS_OK) {
        on_connected(self->connection, self);
    } else if (status == NATS_NO_SERVER) {
        char **servers = self->settings.servers;
        transport_log(self->host, PH_LOG_WARNING, "no NATS server answers at %s%s: trying again", servers[0],
                      servers[1] ? " nor the others" : "");
        status = natsOptions_SetRetryOnFailedConnect(self->options, true, on_connected, self);
        if (status == NATS_OK) status = natsConnection_Connect(&self->connection, self->options);
        if (status != NATS_OK && status != NATS_NOT_YET_CONNECTED) {
            transport_log(self->host, PH_LOG_ERROR, "cannot connect to %s: %s", servers[0], jetstream_error_text(status));
            return -1;
        }
    } else {
        transport_log(self->host, PH_LOG_ERROR, "cannot connect to %s: %s", self->settings.servers[0],
                      jetstream_error_text(status));
        return -1;
    }
    status = natsConnection_JetStream(&self->js, self->connection, NULL);
    if (status != NATS_OK) {
        transport_log(self->host, PH_LOG_ERROR, "cannot use JetStream: %s", jetstream_error_text(status));
        return -1;
    }
    return 0;
}

/* Sends what is buffered (the last Acks), then closes. The callbacks that
 * the close brings no longer touch the metrics: the gauge says 0 here. */
void jetstream_disconnect(jetstream_plugin *self) {
    atomic_store(&self->closing, true);
    transport_metric_set(self->metrics.table, self->metrics.connected, 0);
    if (self->connection) {
        if (atomic_load(&self->connected)) natsConnection_FlushTimeout(self->connection, 2000);
        natsConnection_Close(self->connection);
    }
    jsCtx_Destroy(self->js);
    natsConnection_Destroy(self->connection);
    natsOptions_Destroy(self->options);
    self->js = NULL;
    self->connection = NULL;
    self->options = NULL;
}
