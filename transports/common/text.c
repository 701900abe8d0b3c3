/*
 * text.c: see text.h.
 */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void transport_log_once(const ph_host *host, ph_log_level level, char **said, const char *line) {
    if (*said && strcmp(*said, line) == 0) return;
    free(*said);
    *said = strdup(line);
    host->log(host, level, line);
}
