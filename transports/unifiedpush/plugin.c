/*
 * plugin.c: the unifiedpush plugin's descriptor, settings and lifetime.
 *
 * A source plugin (ph.source/1): once started, its bus thread (session.c)
 * owns the application id on the session bus, registers with a UnifiedPush
 * distributor, and hands the host each endpoint as a token event of its own
 * and each push, decrypted, as a message, never a host event (ph.intake/1). Its keys live in the plugin's
 * state folder (ph.state/1), so the endpoint and the keys senders use
 * survive restarts.
 *
 * Settings:
 *   app_id       the application id the connector owns on the bus, reverse
 *                DNS (required), e.g. org.example.Pushhost
 *   description  what the distributor may show (default: pushhost)
 *   distributor  the distributor's bus name (default: the first
 *                org.unifiedpush.Distributor.* name, in byte order)
 */
#include "unifiedpush.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A bus name of reverse-DNS form: dot-separated elements of [A-Za-z0-9_-],
 * at least two, none starting with a digit, at most 255 bytes. */
static bool is_app_id(const char *s) {
    size_t elements = 0, length = strlen(s);
    if (length == 0 || length > 255) return false;
    for (const char *at = s; *at;) {
        const char *end = strchr(at, '.');
        size_t n = end ? (size_t)(end - at) : strlen(at);
        if (n == 0 || (at[0] >= '0' && at[0] <= '9')) return false;
        for (size_t i = 0; i < n; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", at[i])) return false;
        elements++;
        at += n + (end ? 1 : 0);
        if (end && !*at) return false;
    }
    return elements >= 2;
}

static void free_settings(up_settings *s) {
    free(s->app_id);
    free(s->description);
    free(s->distributor);
}

/* Its own metrics (ph.metrics/1), which the host takes in create only:
 * none when the host lacks it, and then nothing is counted. */
static void register_metrics(unifiedpush *self) {
    up_metrics *m = &self->metrics;
    const transport_metric_spec specs[] = {
        {&m->messages, PH_METRIC_COUNTER, "messages_total",
         "Pushes from the distributor decrypted and handed to the host as messages."},
        {&m->decrypt_failures, PH_METRIC_COUNTER, "decrypt_failures_total",
         "Pushes from the distributor that did not decrypt (Web Push, RFC 8291): rejected."},
        {&m->endpoint_changes, PH_METRIC_COUNTER, "endpoint_changes_total",
         "Endpoints the distributor gave (NewEndpoint), handed to the host as the token."},
        {&m->registered, PH_METRIC_GAUGE, "registered",
         "1 while registered with a UnifiedPush distributor, else 0."},
    };
    m->table = transport_metrics_declare(self->host, specs, sizeof specs / sizeof *specs);
}

static void *up_create(const ph_host *host, const ph_config *config) {
    const char *app_id = host->config_get(config, "app_id");
    const char *description = host->config_get(config, "description");
    const char *distributor = host->config_get(config, "distributor");
    if (!app_id || !*app_id) {
        host->log(host, PH_LOG_ERROR, "the app_id setting is required: the connector's bus name, such as org.example.Pushhost");
        return NULL;
    }
    if (!is_app_id(app_id)) {
        transport_log(host, PH_LOG_ERROR, "setting app_id: \"%s\" is not a bus name in reverse DNS form (such as org.example.Pushhost)", app_id);
        return NULL;
    }
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    const ph_state *state = host->get_extension(host, PH_EXT_STATE);
    if (!intake || !PH_HAS_FIELD(ph_intake, intake, submit_record) || !state ||
        !PH_HAS_FIELD(ph_state, state, directory)) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_INTAKE " or " PH_EXT_STATE ", which this plugin needs");
        return NULL;
    }
    const char *folder = state->directory(host);
    if (!folder) return NULL; /* the host said why */
    unifiedpush *self = calloc(1, sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->intake = intake;
    self->wake = -1;
    self->settings.app_id = strdup(app_id);
    self->settings.description = strdup(description && *description ? description : "pushhost");
    self->settings.distributor = distributor && *distributor ? strdup(distributor) : NULL;
    self->keys_path = transport_format("%s/keys", folder);
    if (!self->settings.app_id || !self->settings.description || (distributor && *distributor && !self->settings.distributor) ||
        !self->keys_path) {
        host->log(host, PH_LOG_ERROR, "out of memory");
    } else if (up_keys_load(self) == 0) {
        register_metrics(self);
        return self;
    }
    free_settings(&self->settings);
    free(self->keys_path);
    free(self);
    return NULL;
}

static int up_start(void *p) {
    unifiedpush *self = p;
    self->wake = eventfd(0, EFD_CLOEXEC);
    int failed = self->wake < 0 ? errno : pthread_create(&self->thread, NULL, up_session_main, self);
    if (failed) {
        transport_log(self->host, PH_LOG_ERROR, "cannot start the bus thread: %s", strerror(failed));
        return -1;
    }
    self->thread_running = true;
    atomic_store(&self->submitting, true);
    return 0;
}

/* Ends the bus thread: nothing more is submitted, and the name is given up. */
static void up_stop(void *p) {
    unifiedpush *self = p;
    atomic_store(&self->submitting, false);
    if (self->thread_running) {
        uint64_t one = 1;
        ssize_t n = write(self->wake, &one, sizeof one);
        (void)n; /* an eventfd always takes one more */
        pthread_join(self->thread, NULL);
        self->thread_running = false;
    }
}

static void up_destroy(void *p) {
    unifiedpush *self = p;
    if (!self) return;
    up_stop(self);
    if (self->wake >= 0) close(self->wake);
    memset(&self->keys, 0, sizeof self->keys);
    free(self->said);
    free(self->keys_path);
    free_settings(&self->settings);
    free(self);
}

static const ph_source source = {
    .struct_size = sizeof(ph_source),
    .start = up_start,
    .stop = up_stop,
};

static const void *up_get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_SOURCE, PH_EXT_INTAKE, PH_EXT_STATE, PH_EXT_METRICS, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "unifiedpush",
    .version = "1.0.0",
    .description = "A UnifiedPush connector on the session bus: endpoints become tokens, pushes (Web Push, "
                   "decrypted) become records.",
    .create = up_create,
    .destroy = up_destroy,
    .get_extension = up_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
