/*
 * text.c: see text.h.
 */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static char *vformat(const char *format, va_list args) {
    va_list measure;
    va_copy(measure, args);
    int n = vsnprintf(NULL, 0, format, measure);
    va_end(measure);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text) vsnprintf(text, (size_t)n + 1, format, args);
    return text;
}

char *transport_format(const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = vformat(format, args);
    va_end(args);
    return text;
}

void transport_log(const ph_host *host, ph_log_level level, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = vformat(format, args);
    va_end(args);
    host->log(host, text ? level : PH_LOG_ERROR, text ? text : "out of memory");
    free(text);
}

char *transport_json_quote(const char *s) {
    size_t n = 2;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) n += (*c == '"' || *c == '\\') ? 2 : *c < 0x20 ? 6 : 1;
    char *out = malloc(n + 1), *at = out;
    if (!out) return NULL;
    *at++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            *at++ = '\\';
            *at++ = (char)*c;
        } else if (*c < 0x20) {
            at += snprintf(at, 7, "\\u%04x", *c);
        } else {
            *at++ = (char)*c;
        }
    }
    *at++ = '"';
    *at = '\0';
    return out;
}
