/*
 * queue.c: the requests on their way from the dispatch thread (on_background)
 * to the bus thread, in order. The queue is bounded: when it is full, a push
 * waits for the bus thread to take what is there (a burst goes at the
 * server's pace, and nothing is lost), but at most PUSH_WAIT_SECONDS; after
 * that the oldest request is dropped, and the bus thread reports how many
 * were. A server that hangs therefore holds the host up only that long (and
 * bus.c stops calling one that timed out for a while).
 */
#include "desktop.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* More waiting requests than this means the server does not keep up. */
#define QUEUE_CAP 1024
/* How long a push waits for room. */
#define PUSH_WAIT_SECONDS 5

int desktop_queue_init(desktop_queue *q) {
    q->head = q->tail = NULL;
    q->count = q->dropped = 0;
    q->quit = false;
    q->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (q->wake < 0) return -1;
    pthread_condattr_t monotonic;
    bool made = pthread_condattr_init(&monotonic) == 0 &&
                pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC) == 0 &&
                pthread_cond_init(&q->room, &monotonic) == 0;
    if (!made || pthread_mutex_init(&q->lock, NULL) != 0) {
        if (made) pthread_cond_destroy(&q->room);
        close(q->wake);
        q->wake = -1;
        return -1;
    }
    return 0;
}

void desktop_queue_destroy(desktop_queue *q) {
    for (desktop_request *r = q->head, *next; r; r = next) {
        next = r->next;
        desktop_request_free(r);
    }
    q->head = q->tail = NULL;
    pthread_cond_destroy(&q->room);
    pthread_mutex_destroy(&q->lock);
    close(q->wake);
}

static void wake(desktop_queue *q) {
    uint64_t one = 1;
    ssize_t n = write(q->wake, &one, sizeof one);
    (void)n; /* a full counter still wakes the reader */
}

void desktop_queue_push(desktop *self, desktop_request *r) {
    desktop_queue *q = &self->queue;
    desktop_request *dropped = NULL;
    r->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->count >= QUEUE_CAP) {
        wake(q);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += PUSH_WAIT_SECONDS;
        while (q->count >= QUEUE_CAP && pthread_cond_timedwait(&q->room, &q->lock, &until) == 0) {}
    }
    if (q->tail) q->tail->next = r;
    else q->head = r;
    q->tail = r;
    if (++q->count > QUEUE_CAP) {
        dropped = q->head;
        q->head = dropped->next;
        q->count--;
        q->dropped++;
    }
    pthread_mutex_unlock(&q->lock);
    desktop_request_free(dropped);
    wake(q);
}

void desktop_queue_quit(desktop_queue *q) {
    pthread_mutex_lock(&q->lock);
    q->quit = true;
    pthread_mutex_unlock(&q->lock);
    wake(q);
}

desktop_request *desktop_queue_take(desktop_queue *q, bool *quit, size_t *dropped) {
    uint64_t count;
    ssize_t n = read(q->wake, &count, sizeof count);
    (void)n; /* EAGAIN: nothing was signalled since the last take */
    pthread_mutex_lock(&q->lock);
    desktop_request *list = q->head;
    q->head = q->tail = NULL;
    q->count = 0;
    *quit = q->quit;
    *dropped = q->dropped;
    q->dropped = 0;
    pthread_cond_broadcast(&q->room);
    pthread_mutex_unlock(&q->lock);
    return list;
}
