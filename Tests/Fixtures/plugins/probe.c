/* A configurable test plugin: the probe.
 *
 * Built with -DNAME='"app"' (its name; "probe" by default) and, for each role
 * it plays, one of -DROLE_DATA, -DROLE_BACKGROUND, -DROLE_FOREGROUND (with
 * -DTARGETS='"a", "b"'), -DROLE_TOKEN, -DROLE_ACTION (ABI 1.1) and
 * -DROLE_INTERCEPTOR (ph.interceptor/1, ABI 1.1): only the handlers of those
 * roles are filled in its descriptor (see roles.h).
 *
 * Every handler call appends one line to the file at the `log` setting
 * (required), flushed at once:
 * `NAME EVENT ID TARGET-or-dash [ path=value|NULL ...] [ JSON]`, where EVENT
 * is data, background, target or mismatch; `NAME complete ID TARGET VERDICT`
 * (written by the answering thread just before it calls `complete`);
 * `NAME token NEW PREVIOUS-or-dash`; `NAME destroy`.
 *
 * Settings (`--set NAME.KEY=VALUE`), each overridden per message by
 * `data.NAME.KEY`, then `data.KEY`, when the message has them:
 * - `verdict`: continue, suppress, failed, pending, pending-never,
 *   pending-twice (default continue); any other word makes on_data return
 *   99, which is no verdict at all.
 * - `then`: the verdict a pending answer completes with (default continue).
 * - `delay_ms`: how long a new thread waits before it calls `complete`.
 * - `get`: comma-separated paths; appends ` path=value` (or `=NULL`) of
 *   `message_get`.
 * - `many=true`: reads the `get` paths (at most 16) in one call of
 *   `message_get_many` (ABI 1.2) instead, and appends ` found=N`, what it
 *   returned; where its table has no such field (a host, or this plugin
 *   built against a header, older than that), one by one, and appends
 *   ` many=absent`. `many=huge` passes a count of SIZE_MAX with the same
 *   paths, as a plugin that lies about its arrays would.
 * - `json=true`: appends ` ` and `message_json` (and ` LEN-MISMATCH` when
 *   its length does not match).
 *
 * As an action handler: `NAME action ID TARGET-or-dash ACTION INPUT-or-NULL`,
 * then the extras above.
 *
 * As an interceptor: `NAME intercept ID TARGET-or-dash[ set=0|-1]`, then the
 * extras above, for each message the chain gives it; `NAME outcome ID
 * TARGET-or-dash REPORT-LINE` from `on_outcome`; and `NAME later ID
 * TARGET-or-dash[ set=0|-1]` from the thread that ends a held turn, just
 * before it does. Settings, overridden per message as above:
 * - `intercept`: proceed (the default), suppress or fail (a `stop` with the
 *   `reason` setting, default `told to`), hold (a thread proceeds after
 *   `delay_ms`), hold-suppress (a thread stops after `delay_ms`), never
 *   (neither), proceed-twice, proceed-stop (both, during the call),
 *   hold-twice (a thread proceeds twice), continue (a `stop` with
 *   `PH_CONTINUE`, which is no stop verdict), segv (raises SIGSEGV in the
 *   call), hold-segv (a thread raises SIGSEGV after `delay_ms`: for
 *   `--isolate`).
 * - `set`: `PATH=JSON` (or `PATH` alone to remove) for `set` during the
 *   call; `set_later`: the same, from the thread of a held turn.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef NAME
#define NAME "probe"
#endif
#define UNUSED __attribute__((unused))

typedef struct probe {
    const ph_host *host;
    const ph_config *config;
    FILE *out;
    int json;
    int many;
    const char *get;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    int running;
} probe;

typedef struct answer {
    probe *self;
    const ph_message *m;
    char *id;
    char *target;
    long delay_ms;
    ph_verdict verdict;
    int times;
} answer;

static const char *or_dash(const char *text) { return text ? text : "-"; }

static const char *word_of(ph_verdict verdict) {
    switch (verdict) {
    case PH_CONTINUE: return "continue";
    case PH_SUPPRESS: return "suppress";
    case PH_FAILED: return "failed";
    default: return "pending";
    }
}

/* data.NAME.KEY, else data.KEY, else the setting KEY. */
static const char *setting(probe *self, const ph_message *m, const char *key) {
    char path[128];
    snprintf(path, sizeof path, "data.%s.%s", NAME, key);
    const char *value = self->host->message_get(m, path);
    if (value) return value;
    snprintf(path, sizeof path, "data.%s", key);
    value = self->host->message_get(m, path);
    return value ? value : self->host->config_get(self->config, key);
}

/* Copies the path at p, up to a comma, into path (cut at 255 bytes); where the next one starts. */
static const char *next_path(const char *p, char path[256]) {
    size_t n = strcspn(p, ",");
    size_t kept = n < 255 ? n : 255;
    memcpy(path, p, kept);
    path[kept] = '\0';
    return p[n] == ',' ? p + n + 1 : p + n;
}

static void line_with(probe *self, const char *event, const ph_message *m, const char *extra) {
    FILE *out = self->out;
    flockfile(out);
    fprintf(out, "%s %s %s %s%s", NAME, event, self->host->message_id(m), or_dash(self->host->message_target(m)), extra);
#if PH_ABI_MINOR >= 2
    if (self->many && PH_HAS_FIELD(ph_host, self->host, message_get_many)) {
        char paths[16][256];
        const char *named[16];
        size_t count = 0;
        for (const char *p = self->get; p && *p && count < 16; count++) {
            p = next_path(p, paths[count]);
            named[count] = paths[count];
        }
        const char *values[16];
        for (size_t i = 0; i < count; i++) values[i] = "UNTOUCHED";
        size_t found = self->host->message_get_many(m, named, self->many == 2 ? SIZE_MAX : count, values);
        for (size_t i = 0; i < count; i++) fprintf(out, " %s=%s", named[i], values[i] ? values[i] : "NULL");
        fprintf(out, " found=%zu", found);
    } else
#endif
    {
        for (const char *p = self->get; p && *p;) {
            char path[256];
            p = next_path(p, path);
            const char *value = self->host->message_get(m, path);
            fprintf(out, " %s=%s", path, value ? value : "NULL");
        }
        if (self->many) fputs(" many=absent", out);
    }
    if (self->json) {
        size_t len = 0;
        const char *json = self->host->message_json(m, &len);
        fprintf(out, " %s%s", json, strlen(json) == len ? "" : " LEN-MISMATCH");
    }
    fputc('\n', out);
    fflush(out);
    funlockfile(out);
}

static void line(probe *self, const char *event, const ph_message *m) { line_with(self, event, m, ""); }

static void *create(const ph_host *host, const ph_config *config) {
    const char *log = host->config_get(config, "log");
    if (!log) {
        host->log(host, PH_LOG_ERROR, "the log setting is required");
        return NULL;
    }
    probe *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->out = fopen(log, "a");
    if (!self->out) {
        host->log(host, PH_LOG_ERROR, "cannot open the log");
        free(self);
        return NULL;
    }
    setvbuf(self->out, NULL, _IOFBF, 1 << 16);
    self->host = host;
    self->config = config;
    const char *json = host->config_get(config, "json");
    self->json = json && strcmp(json, "true") == 0;
    self->get = host->config_get(config, "get");
    const char *many = host->config_get(config, "many");
    self->many = !many ? 0 : strcmp(many, "true") == 0 ? 1 : strcmp(many, "huge") == 0 ? 2 : 0;
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->idle, NULL);
    return self;
}

static void destroy(void *p) {
    probe *self = p;
    pthread_mutex_lock(&self->lock);
    while (self->running > 0) pthread_cond_wait(&self->idle, &self->lock);
    pthread_mutex_unlock(&self->lock);
    fprintf(self->out, "%s destroy\n", NAME);
    fclose(self->out);
    pthread_mutex_destroy(&self->lock);
    pthread_cond_destroy(&self->idle);
    free(self);
}

/* A thread of the probe's is done: destroy may go on once none runs. */
static void thread_ended(probe *self) {
    pthread_mutex_lock(&self->lock);
    self->running--;
    pthread_cond_broadcast(&self->idle);
    pthread_mutex_unlock(&self->lock);
}

static void *answer_later(void *p) {
    answer *a = p;
    probe *self = a->self;
    if (a->delay_ms > 0) {
        struct timespec wait = {a->delay_ms / 1000, (a->delay_ms % 1000) * 1000000L};
        while (nanosleep(&wait, &wait) != 0) {}
    }
    for (int i = 0; i < a->times; i++) {
        flockfile(self->out);
        fprintf(self->out, "%s complete %s %s %s\n", NAME, a->id, or_dash(a->target), word_of(a->verdict));
        fflush(self->out);
        funlockfile(self->out);
        self->host->complete(self->host, a->m, a->verdict);
    }
    free(a->id);
    free(a->target);
    free(a);
    thread_ended(self);
    return NULL;
}

static int parse(const char *word, ph_verdict *verdict) {
    if (!word || strcmp(word, "continue") == 0) *verdict = PH_CONTINUE;
    else if (strcmp(word, "suppress") == 0) *verdict = PH_SUPPRESS;
    else if (strcmp(word, "failed") == 0) *verdict = PH_FAILED;
    else return 0;
    return 1;
}

UNUSED static ph_verdict on_data(void *p, const ph_message *m) {
    probe *self = p;
    line(self, "data", m);
    const char *word = setting(self, m, "verdict");
    ph_verdict verdict;
    if (parse(word, &verdict)) return verdict;
    if (strcmp(word, "pending-never") == 0) return PH_PENDING;
    int twice = strcmp(word, "pending-twice") == 0;
    if (!twice && strcmp(word, "pending") != 0) return (ph_verdict)99;
    answer *a = calloc(1, sizeof *a);
    if (!a || !parse(setting(self, m, "then"), &a->verdict)) {
        free(a);
        self->host->log(self->host, PH_LOG_ERROR, "bad then setting, or out of memory");
        return PH_FAILED;
    }
    const char *delay = setting(self, m, "delay_ms");
    const char *target = self->host->message_target(m);
    a->self = self;
    a->m = m;
    a->id = strdup(self->host->message_id(m));
    a->target = target ? strdup(target) : NULL;
    a->delay_ms = delay ? strtol(delay, NULL, 10) : 0;
    a->times = twice ? 2 : 1;
    pthread_mutex_lock(&self->lock);
    self->running++;
    pthread_mutex_unlock(&self->lock);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&thread, &attributes, answer_later, a);
    pthread_attr_destroy(&attributes);
    if (failed) {
        pthread_mutex_lock(&self->lock);
        self->running--;
        pthread_mutex_unlock(&self->lock);
        free(a->id);
        free(a->target);
        free(a);
        self->host->log(self->host, PH_LOG_ERROR, "pthread_create failed");
        return PH_FAILED;
    }
    return PH_PENDING;
}

UNUSED static void on_background(void *p, const ph_message *m) { line(p, "background", m); }
UNUSED static void on_target(void *p, const ph_message *m) { line(p, "target", m); }
UNUSED static void on_mismatch(void *p, const ph_message *m) { line(p, "mismatch", m); }

UNUSED static void on_token(void *p, const char *token, const char *previous) {
    probe *self = p;
    fprintf(self->out, "%s token %s %s\n", NAME, token, or_dash(previous));
    fflush(self->out);
}

UNUSED static void on_action(void *p, const ph_message *m, const char *action, const char *input) {
    char extra[512];
    snprintf(extra, sizeof extra, " %s %s", action, input ? input : "NULL");
    line_with(p, "action", m, extra);
}

#ifdef ROLE_INTERCEPTOR
/* The host's chain API, found at the first intercept. */
static const ph_chain_api *chain;

/* The `set` edit in `spec` (PATH=JSON, or PATH to remove) through link; its answer. */
static int set_from(ph_chain *link, const char *spec) {
    char path[256];
    const char *equals = strchr(spec, '=');
    size_t n = equals ? (size_t)(equals - spec) : strlen(spec);
    if (n >= sizeof path) n = sizeof path - 1;
    memcpy(path, spec, n);
    path[n] = '\0';
    return chain->set(link, path, equals ? equals + 1 : NULL);
}

typedef struct held {
    probe *self;
    ph_chain *link;
    char *id;
    char *target;
    char *set_later;
    long delay_ms;
    char mode[32];
} held;

static void *end_later(void *p) {
    held *h = p;
    probe *self = h->self;
    if (h->delay_ms > 0) {
        struct timespec wait = {h->delay_ms / 1000, (h->delay_ms % 1000) * 1000000L};
        while (nanosleep(&wait, &wait) != 0) {}
    }
    char extra[64] = "";
    if (h->set_later) snprintf(extra, sizeof extra, " set=%d", set_from(h->link, h->set_later));
    flockfile(self->out);
    fprintf(self->out, "%s later %s %s%s\n", NAME, h->id, or_dash(h->target), extra);
    fflush(self->out);
    funlockfile(self->out);
    if (strcmp(h->mode, "hold-segv") == 0) {
        raise(SIGSEGV);
    } else if (strcmp(h->mode, "hold-suppress") == 0) {
        chain->stop(h->link, PH_SUPPRESS, "held, then told to");
    } else {
        chain->proceed(h->link);
        if (strcmp(h->mode, "hold-twice") == 0) chain->proceed(h->link);
    }
    free(h->id);
    free(h->target);
    free(h->set_later);
    free(h);
    thread_ended(self);
    return NULL;
}

static void intercept(void *p, ph_chain *link) {
    probe *self = p;
    if (!chain) chain = self->host->get_extension(self->host, PH_EXT_CHAIN);
    const ph_message *m = chain->message(link);
    const char *mode = setting(self, m, "intercept");
    const char *reason = setting(self, m, "reason");
    const char *edit = setting(self, m, "set");
    char extra[64] = "";
    if (edit) snprintf(extra, sizeof extra, " set=%d", set_from(link, edit));
    line_with(self, "intercept", m, extra);
    if (!reason) reason = "told to";
    if (!mode || strcmp(mode, "proceed") == 0) {
        chain->proceed(link);
    } else if (strcmp(mode, "suppress") == 0) {
        chain->stop(link, PH_SUPPRESS, reason);
    } else if (strcmp(mode, "fail") == 0) {
        chain->stop(link, PH_FAILED, reason);
    } else if (strcmp(mode, "proceed-twice") == 0) {
        chain->proceed(link);
        chain->proceed(link);
    } else if (strcmp(mode, "proceed-stop") == 0) {
        chain->proceed(link);
        chain->stop(link, PH_SUPPRESS, reason);
    } else if (strcmp(mode, "continue") == 0) {
        chain->stop(link, PH_CONTINUE, reason);
    } else if (strcmp(mode, "segv") == 0) {
        raise(SIGSEGV);
    } else if (strncmp(mode, "hold", 4) == 0) {
        held *h = calloc(1, sizeof *h);
        const char *delay = setting(self, m, "delay_ms");
        const char *later = setting(self, m, "set_later");
        const char *target = self->host->message_target(m);
        h->self = self;
        h->link = link;
        h->id = strdup(self->host->message_id(m));
        h->target = target ? strdup(target) : NULL;
        h->set_later = later ? strdup(later) : NULL;
        h->delay_ms = delay ? strtol(delay, NULL, 10) : 0;
        snprintf(h->mode, sizeof h->mode, "%s", mode);
        pthread_mutex_lock(&self->lock);
        self->running++;
        pthread_mutex_unlock(&self->lock);
        pthread_t thread;
        pthread_create(&thread, NULL, end_later, h);
        pthread_detach(thread);
    }
    /* never: neither proceed nor stop. */
}

static void on_outcome(void *p, const ph_message *m, const char *report_line) {
    char extra[4096];
    snprintf(extra, sizeof extra, " %s", report_line);
    line_with(p, "outcome", m, extra);
}

static const ph_interceptor interceptor = {sizeof(ph_interceptor), intercept, on_outcome};

static const void *get_extension(void *p, const char *id) {
    (void)p;
    return strcmp(id, PH_EXT_INTERCEPTOR) == 0 ? &interceptor : NULL;
}
#endif

#define DESCRIPTION "A test probe."
#include "roles.h"
