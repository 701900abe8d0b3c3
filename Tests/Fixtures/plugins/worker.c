/* A test plugin for `--isolate`: the worker, which misbehaves on request.
 *
 * Built with -DNAME='"worker"' (its name; "worker" by default) and the -DROLE_
 * defines of roles.h for the data, background, foreground, token and action
 * roles. Every line it writes goes to the file at its `log` setting, whole
 * and flushed at once:
 * - `create PID PPID` from create, `destroy PID` from destroy;
 * - `HANDLER ID PID PPID` first in every handler call (on_data,
 *   on_background, on_target, on_mismatch), and `on_token NEW PID PPID
 *   PREVIOUS-or-dash` (a token `segv` crashes it), and `on_action ID PID PPID
 *   ACTION INPUT-or-NULL` (an action named `segv` crashes it);
 * - `complete ID PID PPID` from the thread of a `later` answer, just before
 *   it calls complete;
 * - `ask ID QUERY=ANSWER` (NULL for a NULL answer) for each query of the
 *   message's `data.ask`, a comma-separated list of: `id`, `target`, `token`
 *   (current_token), `json` (then `json_len=ok|mismatch`), `get:PATH`
 *   (message_get), `config:KEY` (config_get), `log:TEXT` (host->log at info;
 *   the answer is TEXT).
 *
 * Then each handler misbehaves as `data.fault` says (unless `data.only` names
 * another plugin): `segv`, `abort`, `hang` (never returns), `slow` (sleeps
 * `data.ms`, default 1000, then returns), `leak` (4 MiB malloc'd, written and
 * kept), `fail` (PH_FAILED); on_data alone also knows `pending` (PH_PENDING,
 * never completed) and `later` (PH_PENDING, then PH_CONTINUE from another
 * thread about 50 ms later), and the attacks below, which attack the host
 * through the worker's channel. The setting `create_fault=garbage` writes 20
 * bytes that are no frame to that channel from create, before the worker's
 * first frame; `create_fault=again` makes create return NULL once its log
 * holds a line (every start after the first fails).
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"

#ifndef NAME
#define NAME "worker"
#endif
#define UNUSED __attribute__((unused))

typedef struct worker { const ph_host *host; const ph_config *config; FILE *out; } worker;

/* What `leak` took, kept reachable so that no compiler drops it. */
static void *volatile kept;

static void say(worker *self, const char *format, ...) {
    va_list list;
    va_start(list, format);
    flockfile(self->out);
    vfprintf(self->out, format, list);
    fputc('\n', self->out);
    fflush(self->out);
    funlockfile(self->out);
    va_end(list);
}

static const char *or_null(const char *text) { return text ? text : "NULL"; }

/* The faults of on_data that attack the host through the worker's channel
 * to it, as only a plugin that knows how a worker talks would.
 * `attack(self, m, fault)` does one, then waits to be killed (or, when the
 * message's `data.after` is `return`, returns 0 at once); it returns 1 when
 * `fault` is none of them:
 * - `scribble`: 4 KiB of (seeded) random bytes to each of its descriptors 3
 *   to 7 (3 is its socket to the host), except its log's;
 * - `socket-frame`: a frame header that says 4 GiB, on its socket;
 * - `intake-kind`, `intake-huge`: on its intake channel (fd 5), a frame of
 *   the unknown kind 200, and a record frame's header that says 4 GiB;
 * - `ring-head`: the ring's positions: its write position 2 MiB past the
 *   read position, the shared read position garbage;
 * - `ring-frame`: a returned frame's header that says 4 GiB, published as 20
 *   bytes;
 * - `ring-field`: a whole returned frame whose problem says 4 GiB;
 * - `ring-call`: a well-formed answer to call 999999, which was never made;
 * - `ring-returned`: the last returned call (the u64 at 384) set to 999999,
 *   which was never made;
 * - `ring-complete`: a well-formed verdict for call 999999;
 * - `ring-lie`: a well-formed answer that the call under way returned
 *   (the last one it began, from the ring's page at 256), and a wake-up:
 *   the host takes it, while the handler never returns;
 * - `ring-quiet-lie`: the same lie told by the last returned call;
 * - `ring-returned-back`: the last returned call set back to 0, after the
 *   host took the ones before (a worker that goes back would keep its
 *   watcher waiting for the host);
 * - `ring-sneak`: the lie of `ring-quiet-lie` told 300 ms after the host
 *   went to sleep, without the wake-up a worker owes it.
 *
 * Each `ring-` attack first waits (10 s at most) until the host took every
 * answer the ring holds (its read position at 64 is the write position,
 * and the last returned call it took, at 448, the worker's at 384), so
 * that the answers before it count.
 *
 * The channel as a worker lays it out: its socket is fd 3 (its intake
 * channel, for the records its plugin submits, fd 5); its
 * answer ring, a memfd mapped as "pushhost-worker" (its mapping at
 * offset 0: the call ring after it is mapped again on its own), is a page
 * whose first u64 is the worker's write position and whose u64 at 64 is
 * the host's read position, then 1 MiB of frames:
 * [u32 length][u8 kind][u8 handler][u16 0][u64 call][i32 number][payload]. */
#define CHANNEL 3
#define RING_DATA 4096
#define RING_CAPACITY (1u << 20)
#define KIND_RETURNED 5
#define KIND_COMPLETED 6
#define KIND_RECORD 8
#define INTAKE 5

static unsigned char *find_ring(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return NULL;
    char line[512];
    unsigned long start = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long offset = 1;
        if (strstr(line, "memfd:pushhost-worker") && sscanf(line, "%lx-%*x %*s %lx", &start, &offset) == 2 && offset == 0) break;
        start = 0;
    }
    fclose(maps);
    return (unsigned char *)start;
}

static uint64_t *position(unsigned char *ring, int offset) { return (uint64_t *)(void *)(ring + offset); }

static void wake_host(void) {
    unsigned char wake = 1;
    ssize_t sent = write(CHANNEL, &wake, 1);
    (void)sent;
}

static void catch_up(unsigned char *ring) {
    for (int i = 0; i < 10000; i++) {
        if (i % 100 == 0) wake_host();
        uint64_t written = __atomic_load_n(position(ring, 0), __ATOMIC_ACQUIRE);
        uint64_t returned = __atomic_load_n(position(ring, 384), __ATOMIC_ACQUIRE);
        if (__atomic_load_n(position(ring, 64), __ATOMIC_ACQUIRE) == written && __atomic_load_n(position(ring, 448), __ATOMIC_ACQUIRE) == returned) return;
        struct timespec wait = {0, 1000000L};
        nanosleep(&wait, NULL);
    }
}

/* Appends `count` bytes at the write position and publishes them, as a worker does. */
static void ring_put(unsigned char *ring, const unsigned char *bytes, size_t count) {
    uint64_t at = __atomic_load_n(position(ring, 0), __ATOMIC_RELAXED);
    for (size_t i = 0; i < count; i++) ring[RING_DATA + (at + i) % RING_CAPACITY] = bytes[i];
    __atomic_store_n(position(ring, 0), at + count, __ATOMIC_RELEASE);
    wake_host();
}

static void put_u32(unsigned char *out, uint32_t value) {
    for (int i = 0; i < 4; i++) out[i] = (unsigned char)(value >> (8 * i));
}

/* A frame's 20-byte header, its number 0. */
static void header(unsigned char *out, uint32_t length, unsigned char kind, uint64_t call) {
    memset(out, 0, 20);
    put_u32(out, length);
    out[4] = kind;
    for (int i = 0; i < 8; i++) out[8 + i] = (unsigned char)(call >> (8 * i));
}

/* Does the attack `fault` names; 1 when it names none. */
static int forge(worker *self, const char *fault) {
    unsigned char frame[28];
    if (strcmp(fault, "scribble") == 0) {
        unsigned int seed = 1;
        unsigned char bytes[4096];
        for (int fd = 3; fd <= 7; fd++) {
            if (fd == fileno(self->out)) continue;
            for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)rand_r(&seed);
            ssize_t written = write(fd, bytes, sizeof bytes);
            (void)written;
        }
        return 0;
    }
    if (strcmp(fault, "socket-frame") == 0) {
        header(frame, 0xFFFFFFF0u, KIND_RETURNED, 1);
        ssize_t written = write(CHANNEL, frame, 20);
        (void)written;
        return 0;
    }
    if (strcmp(fault, "intake-kind") == 0 || strcmp(fault, "intake-huge") == 0) {
        if (fault[7] == 'k') header(frame, 16, 200, 1);
        else header(frame, 0xFFFFFFF0u, KIND_RECORD, 1);
        ssize_t written = write(INTAKE, frame, 20);
        (void)written;
        return 0;
    }
    if (strncmp(fault, "ring-", 5) != 0) return 1;
    unsigned char *ring = find_ring();
    if (!ring) {
        say(self, "attack: no ring in /proc/self/maps");
        return 0;
    }
    catch_up(ring);
    if (strcmp(fault, "ring-head") == 0) {
        uint64_t taken = __atomic_load_n(position(ring, 64), __ATOMIC_ACQUIRE);
        __atomic_store_n(position(ring, 64), (uint64_t)0xdeadbeef, __ATOMIC_RELEASE);
        __atomic_store_n(position(ring, 0), taken + 2 * RING_CAPACITY, __ATOMIC_RELEASE);
        wake_host();
    } else if (strcmp(fault, "ring-frame") == 0) {
        header(frame, 0xFFFFFFF0u, KIND_RETURNED, 0);
        ring_put(ring, frame, 20);
    } else if (strcmp(fault, "ring-field") == 0) {
        header(frame, 24, KIND_RETURNED, 0);
        put_u32(frame + 20, 0xFFFFFFF0u);
        memcpy(frame + 24, "oops", 4);
        ring_put(ring, frame, 28);
    } else if (strcmp(fault, "ring-call") == 0) {
        header(frame, 16, KIND_RETURNED, 999999);
        ring_put(ring, frame, 20);
    } else if (strcmp(fault, "ring-returned") == 0) {
        __atomic_store_n(position(ring, 384), (uint64_t)999999, __ATOMIC_RELEASE);
        wake_host();
    } else if (strcmp(fault, "ring-returned-back") == 0) {
        __atomic_store_n(position(ring, 384), (uint64_t)0, __ATOMIC_RELEASE);
        wake_host();
    } else if (strcmp(fault, "ring-quiet-lie") == 0) {
        __atomic_store_n(position(ring, 384), __atomic_load_n(position(ring, 256), __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
        wake_host();
    } else if (strcmp(fault, "ring-sneak") == 0) {
        struct timespec asleep = {0, 300000000L};
        nanosleep(&asleep, NULL);
        __atomic_store_n(position(ring, 384), __atomic_load_n(position(ring, 256), __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    } else if (strcmp(fault, "ring-lie") == 0) {
        header(frame, 16, KIND_RETURNED, __atomic_load_n(position(ring, 256), __ATOMIC_ACQUIRE));
        ring_put(ring, frame, 20);
        wake_host();
    } else if (strcmp(fault, "ring-complete") == 0) {
        header(frame, 16, KIND_COMPLETED, 999999);
        ring_put(ring, frame, 20);
    } else {
        return 1;
    }
    return 0;
}

static int attack(worker *self, const ph_message *m, const char *fault) {
    if (!fault || forge(self, fault)) return 1;
    const char *after = self->host->message_get(m, "data.after");
    if (after && strcmp(after, "return") == 0) return 0;
    for (;;) pause();
}

static void *create(const ph_host *h, const ph_config *c) {
    const char *path = h->config_get(c, "log");
    if (!path) { h->log(h, PH_LOG_ERROR, "no log setting"); return NULL; }
    const char *fault = h->config_get(c, "create_fault");
    struct stat log;
    if (fault && strcmp(fault, "again") == 0 && stat(path, &log) == 0 && log.st_size > 0) {
        h->log(h, PH_LOG_ERROR, "started before: create fails");
        return NULL;
    }
    worker *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = h;
    self->config = c;
    self->out = fopen(path, "a");
    if (!self->out) { h->log(h, PH_LOG_ERROR, "cannot open the log"); free(self); return NULL; }
    say(self, "create %d %d", (int)process_id(), (int)parent_id());
    if (fault && strcmp(fault, "garbage") == 0) {
        ssize_t written = write(3, "garbage, not a frame", 20);
        (void)written;
    }
    return self;
}

static void destroy(void *p) {
    worker *self = p;
    say(self, "destroy %d", (int)process_id());
    fclose(self->out);
    free(self);
}

static void answer(worker *self, const char *id, const ph_message *m, const char *query) {
    const ph_host *h = self->host;
    if (strcmp(query, "id") == 0) {
        say(self, "ask %s id=%s", id, h->message_id(m));
    } else if (strcmp(query, "target") == 0) {
        say(self, "ask %s target=%s", id, or_null(h->message_target(m)));
    } else if (strcmp(query, "token") == 0) {
        say(self, "ask %s token=%s", id, or_null(h->current_token(h)));
    } else if (strcmp(query, "json") == 0) {
        size_t length = 0;
        const char *json = h->message_json(m, &length);
        say(self, "ask %s json=%s", id, json);
        say(self, "ask %s json_len=%s", id, length == strlen(json) ? "ok" : "mismatch");
    } else if (strncmp(query, "get:", 4) == 0) {
        say(self, "ask %s %s=%s", id, query, or_null(h->message_get(m, query + 4)));
    } else if (strncmp(query, "config:", 7) == 0) {
        say(self, "ask %s %s=%s", id, query, or_null(h->config_get(self->config, query + 7)));
    } else if (strncmp(query, "log:", 4) == 0) {
        h->log(h, PH_LOG_INFO, query + 4);
        say(self, "ask %s log=%s", id, query + 4);
    } else {
        say(self, "ask %s %s=UNKNOWN", id, query);
    }
}

/* Writes the call line and the answers; the fault this call is to show, or NULL. */
static const char *called(worker *self, const char *handler, const ph_message *m) {
    const ph_host *h = self->host;
    const char *id = h->message_id(m);
    say(self, "%s %s %d %d", handler, id, (int)process_id(), (int)parent_id());
    const char *ask = h->message_get(m, "data.ask");
    if (ask) {
        char *copy = strdup(ask), *rest = NULL;
        for (char *query = strtok_r(copy, ",", &rest); query; query = strtok_r(NULL, ",", &rest)) answer(self, id, m, query);
        free(copy);
    }
    const char *only = h->message_get(m, "data.only");
    if (only && strcmp(only, NAME) != 0) return NULL;
    return h->message_get(m, "data.fault");
}

/* The faults every handler shows; 1 when `fault` is none of them. */
static int misbehave(worker *self, const ph_message *m, const char *fault) {
    if (!fault) return 0;
    if (strcmp(fault, "segv") == 0) *(volatile int *)0 = 1;
    if (strcmp(fault, "abort") == 0) abort();
    if (strcmp(fault, "hang") == 0) for (;;) pause();
    if (strcmp(fault, "slow") == 0) {
        const char *ms = self->host->message_get(m, "data.ms");
        long delay = ms ? strtol(ms, NULL, 10) : 1000;
        struct timespec wait = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&wait, &wait) != 0) {}
        return 0;
    }
    if (strcmp(fault, "leak") == 0) {
        size_t size = 4u << 20;
        void **block = malloc(size);
        if (block) {
            memset(block, 0x5a, size);
            *block = kept;
            kept = block;
        }
        return 0;
    }
    return 1;
}

typedef struct later { worker *self; const ph_message *m; } later;

static void *complete_later(void *p) {
    later *answer = p;
    struct timespec wait = {0, 50 * 1000000L};
    while (nanosleep(&wait, &wait) != 0) {}
    const ph_host *h = answer->self->host;
    say(answer->self, "complete %s %d %d", h->message_id(answer->m), (int)process_id(), (int)parent_id());
    h->complete(h, answer->m, PH_CONTINUE);
    free(answer);
    return NULL;
}

UNUSED static ph_verdict on_data(void *p, const ph_message *m) {
    worker *self = p;
    const char *fault = called(self, "on_data", m);
    if (!misbehave(self, m, fault)) return PH_CONTINUE;
    if (!attack(self, m, fault)) return PH_CONTINUE;
    if (strcmp(fault, "fail") == 0) return PH_FAILED;
    if (strcmp(fault, "pending") == 0) return PH_PENDING;
    if (strcmp(fault, "later") == 0) {
        later *answer = malloc(sizeof *answer);
        if (!answer) return PH_FAILED;
        answer->self = self;
        answer->m = m;
        pthread_t thread;
        if (pthread_create(&thread, NULL, complete_later, answer) != 0) {
            free(answer);
            self->host->log(self->host, PH_LOG_ERROR, "pthread_create failed");
            return PH_FAILED;
        }
        pthread_detach(thread);
        return PH_PENDING;
    }
    return PH_CONTINUE;
}

UNUSED static void on_background(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_background", m)); }
UNUSED static void on_target(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_target", m)); }
UNUSED static void on_mismatch(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_mismatch", m)); }

UNUSED static void on_token(void *p, const char *token, const char *previous) {
    say(p, "on_token %s %d %d %s", token, (int)process_id(), (int)parent_id(), previous ? previous : "-");
    if (strcmp(token, "segv") == 0) *(volatile int *)0 = 1;
}

UNUSED static void on_action(void *p, const ph_message *m, const char *action, const char *input) {
    worker *self = p;
    say(self, "on_action %s %d %d %s %s", self->host->message_id(m), (int)process_id(), (int)parent_id(), action, input ? input : "NULL");
    if (strcmp(action, "segv") == 0) *(volatile int *)0 = 1;
}

#define DESCRIPTION "A plugin that misbehaves on request."
#include "roles.h"
