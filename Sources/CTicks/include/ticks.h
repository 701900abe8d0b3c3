/* The cheapest clock a handler's duration can be read from (--metrics):
 * the CPU's time-stamp counter where the kernel itself keeps time with it,
 * CLOCK_MONOTONIC in nanoseconds elsewhere. */
#ifndef PUSHHOST_TICKS_H
#define PUSHHOST_TICKS_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Whether the time-stamp counter is read: set once, before any reading
 * (pushhost_ticks_choose). */
extern int pushhost_ticks_use_tsc;

/* Chooses the time-stamp counter (1) or CLOCK_MONOTONIC (0). */
void pushhost_ticks_choose(int use_tsc);

/* Ticks: of the time-stamp counter, or nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t pushhost_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (pushhost_ticks_use_tsc) return __rdtsc();
#endif
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Whether this machine has a time-stamp counter to read at all. */
static inline int pushhost_ticks_have_tsc(void) {
#if defined(__x86_64__) || defined(__i386__)
    return 1;
#else
    return 0;
#endif
}

#endif
