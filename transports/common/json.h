/*
 * json.h: a C string as a JSON string literal, for the records and lines
 * that the transport plugins and the sample plugins (plugins/common/sample.h)
 * write. Every function is static inline, so that the samples, which SwiftPM
 * builds each from its own folder, share this header with the transports:
 * each plugin that includes it gets a private copy and exports nothing.
 *
 * What it writes is always valid JSON, whatever the bytes: a quote and a
 * backslash are escaped, a control character too (\n, \r, \t, \b, \f, else
 * \u00XX), well-formed UTF-8 passes through as it is, and what is not
 * well-formed UTF-8 becomes \ufffd (one for each maximal subpart, as
 * Swift's String(decoding:as:) and browsers do).
 */
#ifndef TRANSPORT_JSON_H
#define TRANSPORT_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many bytes at s make one character: with *ok true, the n bytes of a
 * well-formed UTF-8 sequence; with *ok false, the n >= 1 bytes that start
 * one but break off, which stand for one U+FFFD, as Unicode recommends (the "maximal subpart": a stray
 * continuation byte, a lead byte without all its continuations, an overlong
 * form, a surrogate, past U+10FFFF). Reads no byte past the terminating NUL. */
static inline size_t json_utf8_scan(const unsigned char *s, bool *ok) {
    const unsigned char c = s[0];
    unsigned char low = 0x80, high = 0xBF; /* the bounds of the second byte */
    size_t n;
    *ok = true;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, low = 0xA0;
    else if (c == 0xED) n = 3, high = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, low = 0x90;
    else if (c == 0xF4) n = 4, high = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else n = 0;
    for (size_t i = 1; i < n; i++, low = 0x80, high = 0xBF) {
        if (s[i] < low || s[i] > high) {
            *ok = false;
            return i;
        }
    }
    *ok = n > 0;
    return n > 0 ? n : 1;
}

/* Writes s escaped, without quotes, to out when out is not NULL; returns
 * the number of bytes it takes either way (call it first with NULL to
 * measure). */
static inline size_t json_escape(char *out, const char *s) {
    size_t at = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        char escape[7] = "\\";
        const char *bytes = escape;
        size_t n = 2, used = 1;
        switch (*c) {
        case '"': case '\\': escape[1] = (char)*c; break;
        case '\b': escape[1] = 'b'; break;
        case '\f': escape[1] = 'f'; break;
        case '\n': escape[1] = 'n'; break;
        case '\r': escape[1] = 'r'; break;
        case '\t': escape[1] = 't'; break;
        default:
            if (*c < 0x20) {
                n = (size_t)snprintf(escape, sizeof escape, "\\u%04x", *c);
            } else {
                bool ok;
                used = json_utf8_scan(c, &ok);
                bytes = ok ? (const char *)c : "\\ufffd";
                n = ok ? used : 6;
            }
        }
        if (out) memcpy(out + at, bytes, n);
        at += n;
        c += used;
    }
    return at;
}

/* s as a JSON string, quotes included, in a new string (free it), or NULL
 * when out of memory. */
static inline char *json_quote(const char *s) {
    const size_t n = json_escape(NULL, s);
    char *out = malloc(n + 3);
    if (!out) return NULL;
    out[0] = '"';
    json_escape(out + 1, s);
    out[n + 1] = '"';
    out[n + 2] = '\0';
    return out;
}

#endif
