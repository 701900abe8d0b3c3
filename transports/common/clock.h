/*
 * clock.h: the time the transport plugins measure waits and back-offs by.
 * Compiled into each plugin, like text.h.
 */
#ifndef TRANSPORT_CLOCK_H
#define TRANSPORT_CLOCK_H

#include <stdint.h>

/* Milliseconds of CLOCK_MONOTONIC: only differences mean anything. */
uint64_t transport_now_ms(void);

#endif
