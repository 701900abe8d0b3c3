/*
 * clock.c: see clock.h.
 */
#include "clock.h"

#include <time.h>

uint64_t transport_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}
