/*
 * json_scan.h: the one vector step of the JSON reader. Swift's SIMD types
 * compare lane by lane in scalar code, so the reader's string scan takes
 * its 16-byte step from here, where the compiler's intrinsics apply.
 */
#ifndef PUSHHOST_JSON_SCAN_H
#define PUSHHOST_JSON_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bit i is set when byte i of the 16 bytes at p ends a plain ASCII run
 * inside a JSON string: '"', '\\', a control character (below 0x20) or a
 * byte of 0x80 or above. */
static inline uint32_t json_scan_special16(const uint8_t *p) {
#if defined(__SSE2__)
    __m128i bytes = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'));
    /* Signed: bytes of 0x80 and above are negative, so below 0x20 too. */
    __m128i low = _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20));
    return (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low));
#else
    uint32_t mask = 0;
    for (int i = 0; i < 16; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) mask |= 1u << i;
    }
    return mask;
#endif
}

#endif
