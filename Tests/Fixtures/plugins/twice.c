/* A data plugin that answers every message `PH_PENDING` and completes
 * it from its own thread with `PH_CONTINUE`; just before, it calls
 * `complete` a second time, with `PH_FAILED`, for the message `lag`
 * before it: after `lag` later messages went pending and completed.
 */
#include <pushhost.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { QUEUE = 1 << 16 };
typedef struct twice {
    const ph_host *host;
    long lag, stopping;
    const ph_message **done;
    const ph_message *queue[QUEUE];
    long head, tail;
    pthread_mutex_t lock;
    pthread_cond_t more;
    pthread_t worker;
} twice;

static void *answer(void *p) {
    twice *self = p;
    for (long answered = 0;; answered++) {
        pthread_mutex_lock(&self->lock);
        while (self->head == self->tail && !self->stopping) pthread_cond_wait(&self->more, &self->lock);
        if (self->head == self->tail) {
            pthread_mutex_unlock(&self->lock);
            return NULL;
        }
        const ph_message *m = self->queue[self->head++ % QUEUE];
        pthread_mutex_unlock(&self->lock);
        long slot = answered % self->lag;
        if (answered >= self->lag) self->host->complete(self->host, self->done[slot], PH_FAILED);
        self->done[slot] = m;
        self->host->complete(self->host, m, PH_CONTINUE);
    }
}

static void *create(const ph_host *h, const ph_config *c) {
    twice *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = h;
    self->lag = strtol(h->config_get(c, "lag"), NULL, 10);
    self->done = calloc((size_t)self->lag, sizeof *self->done);
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->more, NULL);
    pthread_create(&self->worker, NULL, answer, self);
    return self;
}

static void destroy(void *p) {
    twice *self = p;
    pthread_mutex_lock(&self->lock);
    self->stopping = 1;
    pthread_cond_signal(&self->more);
    pthread_mutex_unlock(&self->lock);
    pthread_join(self->worker, NULL);
    free(self->done);
    free(self);
}

static ph_verdict on_data(void *p, const ph_message *m) {
    twice *self = p;
    pthread_mutex_lock(&self->lock);
    self->queue[self->tail++ % QUEUE] = m;
    pthread_cond_signal(&self->more);
    pthread_mutex_unlock(&self->lock);
    return PH_PENDING;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "twice", .version = "1.0.0", .create = create, .destroy = destroy, .on_data = on_data,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
