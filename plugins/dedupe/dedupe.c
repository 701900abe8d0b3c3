/*
 * dedupe.c: an interceptor (ph.interceptor/1) that drops repeats. A message
 * whose collapse_key, or, when it has none, whose id, went through less than
 * `window` seconds ago is stopped before the data stage, with the reason in
 * its report line:
 *   "status":"suppressed","by":"dedupe","reason":"duplicate id m-7 seen 0.4s ago"
 *   "status":"suppressed","by":"dedupe","reason":"duplicate of collapse_key toner seen 2.1s ago"
 * Delivery is at least once (a spool file is taken again after a crash, a
 * source plugin's transport may send twice): this is where repeats end.
 *
 * The window counts from the message that went through; a repeat that is
 * dropped does not extend it. A message that went through and then failed
 * (its report line says "status":"failed") is forgotten, so that a retry of
 * it is not taken for a repeat.
 *
 * Shows: offering ph.interceptor/1 and asking the host for ph.chain/1;
 * ending a message's turn during intercept(), with proceed or stop; the
 * output side of the chain (on_outcome); settings checked in create(); a
 * monotonic clock; bounded memory.
 *
 * Threads: every call is on the host's dispatch thread, one at a time, and
 * each turn ends during intercept(): no lock is needed.
 *
 * Settings: window    seconds a key is remembered, above 0, fractions
 *                     allowed (default 60)
 *           max_keys  how many keys are remembered at most, 1 to 1000000
 *                     (default 10000); past it, the oldest is forgotten first
 * Output:   nothing of its own: the report says what was dropped and why.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "../common/sample.h" /* sample_text, sample_format, sample_log */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEYS_LIMIT 1000000

/* What a key is: a message's collapse_key, or its id. The same text as one
 * and as the other are two different keys. */
typedef enum kind { BY_ID, BY_COLLAPSE_KEY } kind;

/* One key that went through: in the list of its hash bucket, and in the
 * list of all keys from the oldest to the newest. */
typedef struct key {
    struct key *next;          /* the next key in the same bucket */
    struct key *older, *newer; /* the neighbours by age */
    uint64_t seen;             /* when its message went through, ns on CLOCK_MONOTONIC */
    uint64_t hash;
    kind kind;
    char text[];               /* the collapse_key or the id, NUL-ended */
} key;

typedef struct dedupe {
    const ph_host *host;       /* valid until destroy() returns */
    const ph_chain_api *chain; /* the host's; same lifetime */
    double window;             /* seconds */
    size_t max_keys, count;
    key **buckets;             /* a power of two of them, at least max_keys */
    size_t mask;               /* the number of buckets, less 1 */
    key *oldest, *newest;
} dedupe;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* FNV-1a, 64 bits. */
static uint64_t hash_of(const char *text) {
    uint64_t hash = 0xcbf29ce484222325u;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        hash = (hash ^ *c) * 0x100000001b3u;
    return hash;
}

/* The key of m: its collapse_key when it has one, else its id. Borrowed
 * from the message. */
static const char *key_of(const ph_host *h, const ph_message *m, kind *kind) {
    const char *collapse_key = sample_text(h->message_get(m, "collapse_key"));
    *kind = collapse_key ? BY_COLLAPSE_KEY : BY_ID;
    return collapse_key ? collapse_key : h->message_id(m);
}

/* The link that points at the key (kind, text), or at the end of its
 * bucket's list (NULL there) when it is not remembered. */
static key **find(dedupe *self, kind kind, const char *text, uint64_t hash) {
    key **link = &self->buckets[hash & self->mask];
    while (*link && !((*link)->hash == hash && (*link)->kind == kind && strcmp((*link)->text, text) == 0))
        link = &(*link)->next;
    return link;
}

/* Forgets the key that *link points at. */
static void forget(dedupe *self, key **link) {
    key *k = *link;
    *link = k->next;
    if (k->older) k->older->newer = k->newer; else self->oldest = k->newer;
    if (k->newer) k->newer->older = k->older; else self->newest = k->older;
    self->count--;
    free(k);
}

static void forget_oldest(dedupe *self) {
    key *k = self->oldest;
    forget(self, find(self, k->kind, k->text, k->hash));
}

/* Remembers a key that is not remembered yet, as the newest; link is where
 * find() left off. 0, or -1 when out of memory. */
static int remember(dedupe *self, key **link, kind kind, const char *text, uint64_t hash, uint64_t now) {
    size_t len = strlen(text);
    key *k = malloc(sizeof *k + len + 1);
    if (!k) return -1;
    memcpy(k->text, text, len + 1);
    k->hash = hash;
    k->kind = kind;
    k->seen = now;
    k->next = NULL;
    *link = k;
    k->older = self->newest;
    k->newer = NULL;
    if (self->newest) self->newest->newer = k; else self->oldest = k;
    self->newest = k;
    self->count++;
    return 0;
}

static double seconds_since(uint64_t then, uint64_t now) { return (double)(now - then) / 1e9; }

static void dedupe_intercept(void *p, ph_chain *chain) {
    dedupe *self = p;
    const ph_message *m = self->chain->message(chain);
    uint64_t now = now_ns();
    /* Keys go through in time order, so the expired ones are the oldest. */
    while (self->oldest && seconds_since(self->oldest->seen, now) >= self->window) forget_oldest(self);

    kind kind;
    const char *text = key_of(self->host, m, &kind); /* borrowed: used before the turn ends */
    uint64_t hash = hash_of(text);
    key **link = find(self, kind, text, hash);
    if (*link) {
        char *reason = sample_format("duplicate %s %s seen %.1fs ago",
                                     kind == BY_COLLAPSE_KEY ? "of collapse_key" : "id", text,
                                     seconds_since((*link)->seen, now));
        self->chain->stop(chain, PH_SUPPRESS, reason ? reason : "duplicate"); /* the host copies it */
        free(reason);
        return;
    }
    if (self->count == self->max_keys) {
        forget_oldest(self);
        link = find(self, kind, text, hash); /* its bucket may have changed */
    }
    if (remember(self, link, kind, text, hash, now) != 0)
        sample_log(self->host, PH_LOG_WARNING, "out of memory: message %s goes through unremembered",
                   self->host->message_id(m));
    self->chain->proceed(chain);
}

/* The report line of a message that went through: one that failed is
 * forgotten, so that its retry goes through too. Report lines are compact
 * JSON, and the first "status" in one is the message's own (the id and the
 * target before it are strings, in which a quote is always escaped). */
static void dedupe_on_outcome(void *p, const ph_message *m, const char *report_line) {
    dedupe *self = p;
    static const char failed[] = "\"status\":\"failed\"";
    const char *status = strstr(report_line, "\"status\":");
    if (!status || strncmp(status, failed, sizeof failed - 1) != 0) return;
    kind kind;
    const char *text = key_of(self->host, m, &kind);
    key **link = find(self, kind, text, hash_of(text));
    if (*link) forget(self, link);
}

/* The `window` setting: seconds, above 0, fractions allowed. 0, or -1
 * (logged). */
static int read_window(const ph_host *host, const ph_config *config, double *window) {
    const char *text = host->config_get(config, "window");
    if (!text) return 0; /* the default stays */
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !isfinite(value) || value <= 0) {
        sample_log(host, PH_LOG_ERROR,
                   "the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not \"%s\"", text);
        return -1;
    }
    *window = value;
    return 0;
}

/* The `max_keys` setting: a whole number from 1 to MAX_KEYS_LIMIT. 0, or
 * -1 (logged). */
static int read_max_keys(const ph_host *host, const ph_config *config, size_t *max_keys) {
    const char *text = host->config_get(config, "max_keys");
    if (!text) return 0; /* the default stays */
    char *end;
    long value = strtol(text, &end, 10);
    if (end == text || *end || value < 1 || value > MAX_KEYS_LIMIT) {
        sample_log(host, PH_LOG_ERROR, "the `max_keys` setting must be a whole number from 1 to %d, not \"%s\"",
                   MAX_KEYS_LIMIT, text);
        return -1;
    }
    *max_keys = (size_t)value;
    return 0;
}

static void *dedupe_create(const ph_host *host, const ph_config *config) {
    double window = 60;
    size_t max_keys = 10000;
    if (read_window(host, config, &window) != 0 || read_max_keys(host, config, &max_keys) != 0) return NULL;
    const ph_chain_api *chain = host->get_extension(host, PH_EXT_CHAIN);
    /* stop is the table's last field this plugin calls: the others come before it. */
    if (!chain || !PH_HAS_FIELD(ph_chain_api, chain, stop)) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_CHAIN ", which an interceptor needs");
        return NULL;
    }

    size_t buckets = 1;
    while (buckets < max_keys) buckets *= 2;
    dedupe *self = calloc(1, sizeof *self);
    key **table = calloc(buckets, sizeof *table);
    if (!self || !table) {
        free(self);
        free(table);
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->chain = chain;
    self->window = window;
    self->max_keys = max_keys;
    self->buckets = table;
    self->mask = buckets - 1;
    return self;
}

static void dedupe_destroy(void *p) {
    dedupe *self = p;
    if (!self) return;
    for (key *k = self->oldest, *newer; k; k = newer) {
        newer = k->newer;
        free(k);
    }
    free(self->buckets);
    free(self);
}

static const ph_interceptor interceptor = {
    .struct_size = sizeof(ph_interceptor),
    .intercept = dedupe_intercept,
    .on_outcome = dedupe_on_outcome,
};

static const void *dedupe_get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_INTERCEPTOR) == 0 ? &interceptor : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_INTERCEPTOR, PH_EXT_CHAIN, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "dedupe",
    .version = "1.0.0",
    .description = "Interceptor: drops a message whose collapse_key, else id, went through "
                   "within the window.",
    .create = dedupe_create,
    .destroy = dedupe_destroy,
    .get_extension = dedupe_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
