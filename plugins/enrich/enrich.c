/*
 * enrich.c: an interceptor (ph.interceptor/1) that edits messages on their
 * way in. A message with a notification but no picture gets
 * notification.image, made from a template, before any data plugin or
 * screen sees it; with
 *   image = https://img.example.com/{target}/{id}.png
 * m-101, aimed at issues, gets https://img.example.com/issues/m-101.png.
 *
 * Shows: editing the message through the chain (set, with a JSON value),
 * reading any field by dotted path, and leaving a message as it is when it
 * lacks what the edit needs.
 *
 * Threads: every call is on the host's dispatch thread, and each turn ends
 * during intercept().
 *
 * Setting:  image  the template (required). {PATH} stands for the value of
 *                  the message at PATH (id, target, data.sku,
 *                  notification.title, ...), percent-encoded as in a URL
 *                  (every byte but A-Z a-z 0-9 - . _ ~, so "a/b c" gives
 *                  a%2Fb%20c); the rest is copied as it is. A message that
 *                  lacks a PATH is left unchanged (a debug line says so).
 * Output:   nothing of its own: later plugins see notification.image.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "../common/sample.h" /* sample_text, json_quote, sample_log */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct enrich {
    const ph_host *host;       /* valid until destroy() returns */
    const ph_chain_api *chain; /* the host's; same lifetime */
    const char *image;         /* the template: the host's, valid until destroy() returns */
} enrich;

/* Writes value to out percent-encoded: the unreserved characters of a URL
 * as they are, every other byte as %XX. */
static void put_encoded(FILE *out, const char *value) {
    for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
        if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("-._~", *c))
            fputc(*c, out);
        else
            fprintf(out, "%%%02X", *c);
    }
}

/* The template filled in for m, in a new string (free it); NULL when m
 * lacks one of its paths (logged at debug) or when out of memory (logged).
 * create() checked that every { has its }. */
static char *fill(const enrich *self, const ph_message *m) {
    const ph_host *h = self->host;
    char *filled = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&filled, &len);
    if (!out) {
        h->log(h, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    for (const char *at = self->image; *at;) {
        if (*at != '{') { /* text up to the next placeholder, as it is */
            size_t n = strcspn(at, "{");
            fwrite(at, 1, n, out);
            at += n;
            continue;
        }
        size_t n = strcspn(at + 1, "}");
        char *path = strndup(at + 1, n);
        const char *value = path ? h->message_get(m, path) : NULL;
        if (!value) {
            if (path)
                sample_log(h, PH_LOG_DEBUG, "message %s has no %s: its notification.image is left unset",
                           h->message_id(m), path);
            else
                h->log(h, PH_LOG_ERROR, "out of memory");
            free(path);
            fclose(out);
            free(filled);
            return NULL;
        }
        put_encoded(out, value);
        free(path);
        at += 1 + n + 1;
    }
    if (fclose(out) != 0) { /* the stream could not grow */
        h->log(h, PH_LOG_ERROR, "out of memory");
        free(filled);
        return NULL;
    }
    return filled;
}

static void enrich_intercept(void *p, ph_chain *chain) {
    enrich *self = p;
    const ph_host *h = self->host;
    const ph_message *m = self->chain->message(chain);
    if (h->message_get(m, "notification") && !sample_text(h->message_get(m, "notification.image"))) {
        char *image = fill(self, m);
        char *json = image ? json_quote(image) : NULL; /* set takes a JSON value */
        if (image && !json) h->log(h, PH_LOG_ERROR, "out of memory");
        if (json && self->chain->set(chain, "notification.image", json) != 0)
            sample_log(h, PH_LOG_WARNING, "the host refused notification.image %s for message %s", json,
                       h->message_id(m));
        free(json);
        free(image);
    }
    self->chain->proceed(chain);
}

/* The template's placeholders: each { has its } with a path between, and
 * no brace stands alone. 0, or -1 (logged). */
static int check_template(const ph_host *host, const char *image) {
    for (const char *at = image; *at; at++) {
        if (*at == '}') {
            sample_log(host, PH_LOG_ERROR, "the `image` template has a } that closes nothing at byte %zu: \"%s\"",
                       (size_t)(at - image), image);
            return -1;
        }
        if (*at != '{') continue;
        size_t n = strcspn(at + 1, "{}");
        if (at[1 + n] != '}' || n == 0) {
            sample_log(host, PH_LOG_ERROR,
                       "the `image` template has an unfinished placeholder at byte %zu: \"%s\" "
                       "(write {PATH}, such as {id} or {data.sku})",
                       (size_t)(at - image), image);
            return -1;
        }
        at += n + 1;
    }
    return 0;
}

static void *enrich_create(const ph_host *host, const ph_config *config) {
    const char *image = sample_text(host->config_get(config, "image"));
    if (!image) {
        host->log(host, PH_LOG_ERROR,
                  "the `image` setting is required (a template such as https://img.example.com/{target}/{id}.png)");
        return NULL;
    }
    if (check_template(host, image) != 0) return NULL;
    const ph_chain_api *chain = host->get_extension(host, PH_EXT_CHAIN);
    /* stop is the table's last field this plugin calls: the others come before it. */
    if (!chain || !PH_HAS_FIELD(ph_chain_api, chain, stop)) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_CHAIN ", which an interceptor needs");
        return NULL;
    }
    enrich *self = malloc(sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->chain = chain;
    self->image = image;
    return self;
}

static const ph_interceptor interceptor = {
    .struct_size = sizeof(ph_interceptor),
    .intercept = enrich_intercept,
};

static const void *enrich_get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_INTERCEPTOR) == 0 ? &interceptor : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_INTERCEPTOR, PH_EXT_CHAIN, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "enrich",
    .version = "1.0.0",
    .description = "Interceptor: gives a notification without a picture notification.image, "
                   "from a template.",
    .create = enrich_create,
    .destroy = free, /* the state holds nothing else of its own */
    .get_extension = enrich_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
