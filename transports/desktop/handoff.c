/*
 * handoff.c: a request's way from the dispatch thread (on_background) to the
 * bus thread, and the answer back. One request at a time: on_background
 * hands its request over and waits until the bus thread answered it (the
 * server showed it, or why not: its error, no answer within the call's
 * timeout, no server), so a burst goes at the server's pace, nothing is
 * dropped, and the report says which messages were not shown. The wait is
 * bounded by what the bus thread does for one request: one call to the
 * server (5 s at most) and, with fetch_images, its downloads (image_timeout
 * each).
 */
#include "desktop.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

int desktop_handoff_init(desktop_handoff *h) {
    h->request = NULL;
    h->quit = false;
    h->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (h->wake < 0) return -1;
    if (pthread_cond_init(&h->answered, NULL) != 0) {
        close(h->wake);
        h->wake = -1;
        return -1;
    }
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        pthread_cond_destroy(&h->answered);
        close(h->wake);
        h->wake = -1;
        return -1;
    }
    return 0;
}

void desktop_handoff_destroy(desktop_handoff *h) {
    pthread_cond_destroy(&h->answered);
    pthread_mutex_destroy(&h->lock);
    close(h->wake);
}

static void wake(desktop_handoff *h) {
    uint64_t one = 1;
    ssize_t n = write(h->wake, &one, sizeof one);
    (void)n; /* a full counter still wakes the reader */
}

void desktop_handoff_post(desktop_handoff *h, desktop_request *r) {
    r->answered = false;
    pthread_mutex_lock(&h->lock);
    h->request = r;
    wake(h);
    while (!r->answered) pthread_cond_wait(&h->answered, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

void desktop_handoff_quit(desktop_handoff *h) {
    pthread_mutex_lock(&h->lock);
    h->quit = true;
    pthread_mutex_unlock(&h->lock);
    wake(h);
}

desktop_request *desktop_handoff_take(desktop_handoff *h, bool *quit) {
    uint64_t count;
    ssize_t n = read(h->wake, &count, sizeof count);
    (void)n; /* EAGAIN: nothing was signalled since the last take */
    pthread_mutex_lock(&h->lock);
    desktop_request *r = h->request;
    h->request = NULL;
    *quit = h->quit;
    pthread_mutex_unlock(&h->lock);
    return r;
}

void desktop_handoff_answer(desktop_handoff *h, desktop_request *r, bool shown, char *failure) {
    pthread_mutex_lock(&h->lock);
    r->shown = shown;
    r->failure = failure;
    r->answered = true;
    pthread_cond_broadcast(&h->answered);
    pthread_mutex_unlock(&h->lock);
}
