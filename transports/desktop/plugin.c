/*
 * plugin.c: the desktop plugin's descriptor, settings and lifetime.
 *
 * Background role (on_background): each message becomes a desktop
 * notification (freedesktop Notify: title, body, icon, image, urgency,
 * category, buttons for its actions, "default" for a tap), replacing the
 * one of the message before it with the same collapse_key. on_background
 * waits for the server's answer; a message it did not show is failed
 * (host->fail) with the reason.
 *
 * Source role (ph.source/1, unless actions=false): a tap on a notification
 * (ActionInvoked "default") or on one of its buttons comes back to the host
 * as an action event through ph.intake/1, so the screen of the message's
 * target gets on_action, now or when it becomes visible.
 *
 * Settings (all optional):
 *   app_name         the application name the server shows (default pushhost)
 *   icon             the icon of a message without one: a path, file:// URL or icon name
 *   desktop_entry    the application's .desktop file name, without .desktop (the
 *                    desktop-entry hint: GNOME and KDE file the notifications under it)
 *   timeout          seconds before a notification expires; -1 the server's
 *                    default (default), 0 never
 *   targets          comma-separated targets whose messages are shown (default: all)
 *   actions          true (default): taps come back as action events, and the
 *                    host runs until SIGINT or SIGTERM; false: only notifications
 *   image_dirs       comma-separated folders whose files a message may name as
 *                    its image or icon (default: none; downloads and icon names only)
 *   fetch_images     true: download http(s) images and icons (default false)
 *   fetch_private    true: downloads may come from loopback, link-local and
 *                    private addresses (default false: public ones only)
 *   image_max_bytes  the largest download (default 1048576)
 *   image_timeout    seconds a download may take (default 5)
 *
 * Threads: the host's dispatch thread calls every function here; the bus
 * thread (bus.c) does all talking to the bus, and on_background waits for
 * its answer, so the host goes at the server's pace (one call, at most 5 s,
 * per message).
 */
#include "desktop.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Settings ----------------------------------------------------------- */

static void free_settings(desktop_settings *s) {
    free(s->app_name);
    free(s->icon);
    free(s->desktop_entry);
    transport_free_list(s->targets);
    transport_free_list(s->image_dirs);
}

/* image_dirs: each folder made into its real path (no symbolic link, no
 * ..), so that an image's real path is checked against it. 0, or -1 (logged). */
static int read_image_dirs(const ph_host *host, const ph_config *config, desktop_settings *s) {
    const char *text = host->config_get(config, "image_dirs");
    if (!text || !*text) return 0;
    if (!(s->image_dirs = transport_split_list(text))) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return -1;
    }
    for (char **dir = s->image_dirs; *dir; dir++) {
        char real[PATH_MAX];
        struct stat st;
        const char *why = NULL;
        if ((*dir)[0] != '/') why = "not an absolute path";
        else if (!realpath(*dir, real) || stat(real, &st) != 0) why = strerror(errno);
        else if (!S_ISDIR(st.st_mode)) why = "not a folder";
        if (why) {
            transport_log(host, PH_LOG_ERROR, "setting image_dirs: %s: %s", *dir, why);
            return -1;
        }
        char *copy = strdup(real);
        if (!copy) {
            host->log(host, PH_LOG_ERROR, "out of memory");
            return -1;
        }
        free(*dir);
        *dir = copy;
    }
    return 0;
}

static int read_settings(const ph_host *host, const ph_config *config, desktop_settings *s) {
    const char *app_name = host->config_get(config, "app_name");
    const char *icon = host->config_get(config, "icon");
    const char *targets = host->config_get(config, "targets");
    const char *entry = host->config_get(config, "desktop_entry");
    double timeout, max_bytes, image_timeout;
    if (transport_read_flag(host, config, "actions", true, &s->actions) < 0 ||
        transport_read_flag(host, config, "fetch_images", false, &s->fetch_images) < 0 ||
        transport_read_flag(host, config, "fetch_private", false, &s->fetch_private) < 0 ||
        transport_read_number(host, config, "timeout", -1, -1, 86400, "seconds", &timeout) < 0 ||
        transport_read_number(host, config, "image_max_bytes", 1048576, 1, 64 * 1048576, "bytes", &max_bytes) < 0 ||
        transport_read_number(host, config, "image_timeout", 5, 0.001, 600, "seconds", &image_timeout) < 0)
        return -1;
    if (read_image_dirs(host, config, s) < 0) {
        free_settings(s);
        return -1;
    }
    s->expire_ms = timeout < 0 ? -1 : (int32_t)llround(timeout * 1000);
    s->image_max_bytes = (size_t)max_bytes;
    s->image_timeout_ms = (long)llround(image_timeout * 1000);
    s->app_name = strdup(app_name && *app_name ? app_name : "pushhost");
    s->icon = icon && *icon ? strdup(icon) : NULL;
    s->desktop_entry = entry && *entry ? strdup(entry) : NULL;
    s->targets = targets && *targets && strcmp(targets, "*") != 0 ? transport_split_list(targets) : NULL;
    if (!s->app_name || (icon && *icon && !s->icon) || (entry && *entry && !s->desktop_entry) || (targets && *targets && strcmp(targets, "*") != 0 && !s->targets)) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        free_settings(s);
        return -1;
    }
    return 0;
}

/* ---- Metrics ------------------------------------------------------------ */

/* Its own metrics (ph.metrics/1), which the host takes in create only:
 * none when the host lacks it, and then nothing is counted. */
static void register_metrics(desktop *self) {
    desktop_metrics *m = &self->metrics;
    const transport_metric_spec specs[] = {
        {&m->posted, PH_METRIC_COUNTER, "posted_total",
         "Notifications the notification server took (Notify answered with an id)."},
        {&m->replaced, PH_METRIC_COUNTER, "replaced_total",
         "Notifications posted in place of an earlier one with the same collapse_key."},
        {&m->failed, PH_METRIC_COUNTER, "failed_total",
         "Messages whose notification was not shown (failed in their report line)."},
        {&m->actions, PH_METRIC_COUNTER, "actions_total",
         "Taps, buttons and replies the notification server sent for this plugin's notifications."},
        {&m->server_available, PH_METRIC_GAUGE, "server_available",
         "1 while a notification server owns its name on the session bus and answers, else 0."},
    };
    m->table = transport_metrics_declare(self->host, specs, sizeof specs / sizeof *specs);
}

/* ---- Lifetime ----------------------------------------------------------- */

static void *desktop_create(const ph_host *host, const ph_config *config) {
    desktop *self = calloc(1, sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    if (read_settings(host, config, &self->settings) < 0) {
        free(self);
        return NULL;
    }
    /* Where the posted notifications are kept across restarts: the plugin's
     * state folder, when the host offers one. */
    const ph_state *state = host->get_extension(host, PH_EXT_STATE);
    const char *folder = state && PH_HAS_FIELD(ph_state, state, directory) ? state->directory(host) : NULL;
    if (folder && !(self->posted.file = transport_format("%s/posted", folder))) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        free_settings(&self->settings);
        free(self);
        return NULL;
    }
    if (self->settings.actions && !((self->intake = host->get_extension(host, PH_EXT_INTAKE)) &&
                                    PH_HAS_FIELD(ph_intake, self->intake, submit_record))) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_INTAKE ", which taps need (or set actions=false)");
        free(self->posted.file);
        free_settings(&self->settings);
        free(self);
        return NULL;
    }
    if (self->settings.fetch_images && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        host->log(host, PH_LOG_ERROR, "libcurl failed to start, which fetch_images needs");
        free(self->posted.file);
        free_settings(&self->settings);
        free(self);
        return NULL;
    }
    register_metrics(self);
    int failed = desktop_handoff_init(&self->handoff) < 0 ? errno : 0;
    if (!failed) failed = pthread_create(&self->thread, NULL, desktop_bus_main, self);
    if (failed) {
        transport_log(host, PH_LOG_ERROR, "cannot start the bus thread: %s", strerror(failed));
        if (self->handoff.wake >= 0) desktop_handoff_destroy(&self->handoff);
        free(self->posted.file);
        free_settings(&self->settings);
        free(self);
        return NULL;
    }
    self->thread_running = true;
    return self;
}

/* Waits for the bus thread to close the bus. */
static void desktop_destroy(void *p) {
    desktop *self = p;
    if (!self) return;
    if (self->thread_running) {
        desktop_handoff_quit(&self->handoff);
        pthread_join(self->thread, NULL);
    }
    desktop_handoff_destroy(&self->handoff);
    if (self->settings.fetch_images) curl_global_cleanup();
    free_settings(&self->settings);
    free(self);
}

/* ---- Background role ------------------------------------------------------ */

static void desktop_on_background(void *p, const ph_message *m) {
    desktop *self = p;
    const ph_host *host = self->host;
    if (self->settings.targets) {
        const char *target = host->message_target(m);
        if (!target || !transport_list_has(self->settings.targets, target)) {
            transport_log(host, PH_LOG_DEBUG, "message %s: target %s is not among the targets setting", host->message_id(m),
                        target ? target : "(none)");
            return;
        }
    }
    desktop_request *r;
    int made = desktop_request_make(self, m, &r);
    if (made > 0) {
        transport_log(host, PH_LOG_DEBUG, "message %s has no title or body: nothing to show", host->message_id(m));
        return;
    }
    const char *failure = "out of memory: the notification was not shown";
    if (made == 0) {
        desktop_handoff_post(&self->handoff, r);
        if (r->shown) failure = NULL;
        else if (r->failure) failure = r->failure;
    }
    if (failure) transport_metric_add(self->metrics.table, self->metrics.failed, 1);
    if (failure && PH_HAS_FIELD(ph_host, host, fail)) host->fail(host, m, failure);
    else if (failure) host->log(host, PH_LOG_ERROR, failure);
    desktop_request_free(r);
}

/* ---- Source role ---------------------------------------------------------- */

static int desktop_start(void *p) {
    desktop *self = p;
    atomic_store(&self->submitting, true);
    return 0;
}

static void desktop_stop(void *p) {
    desktop *self = p;
    atomic_store(&self->submitting, false);
}

static const ph_source source = {
    .struct_size = sizeof(ph_source),
    .start = desktop_start,
    .stop = desktop_stop,
};

static const void *desktop_get_extension(void *p, const char *id) {
    const desktop *self = p;
    return self && self->settings.actions && strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_SOURCE, PH_EXT_INTAKE, PH_EXT_STATE, PH_EXT_METRICS, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "desktop",
    .version = "1.0.0",
    .description = "Shows background messages as desktop notifications (D-Bus org.freedesktop.Notifications); "
                   "taps come back as actions.",
    .create = desktop_create,
    .destroy = desktop_destroy,
    .on_background = desktop_on_background,
    .get_extension = desktop_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
