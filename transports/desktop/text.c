/*
 * text.c: the strings the plugin builds: JSON quoting for the action events
 * it submits, markup escaping for servers that read body markup, formatted
 * log lines, and comma-separated lists (the targets setting).
 */
#include "desktop.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *desktop_json_quote(const char *s) {
    size_t n = 2;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        n += (*c == '"' || *c == '\\') ? 2 : *c < 0x20 ? 6 : 1;
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

/* The freedesktop body markup is a small XML subset: &, < and > must be
 * entities for the text to show as it is. */
char *desktop_markup_escape(const char *s) {
    size_t n = 0;
    for (const char *c = s; *c; c++) n += *c == '&' ? 5 : (*c == '<' || *c == '>') ? 4 : 1;
    char *out = malloc(n + 1), *at = out;
    if (!out) return NULL;
    for (const char *c = s; *c; c++) {
        const char *entity = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : NULL;
        if (entity) {
            size_t len = strlen(entity);
            memcpy(at, entity, len);
            at += len;
        } else {
            *at++ = *c;
        }
    }
    *at = '\0';
    return out;
}

static char *vformat(const char *format, va_list args) {
    va_list measure;
    va_copy(measure, args);
    int n = vsnprintf(NULL, 0, format, measure);
    va_end(measure);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text) vsnprintf(text, (size_t)n + 1, format, args);
    return text;
}

char *desktop_format(const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = vformat(format, args);
    va_end(args);
    return text;
}

void desktop_log(const ph_host *host, ph_log_level level, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *text = vformat(format, args);
    va_end(args);
    host->log(host, text ? level : PH_LOG_ERROR, text ? text : "out of memory");
    free(text);
}

/* "a, b,c" -> {"a", "b", "c", NULL}; blanks around items are dropped, and
 * empty items too. NULL when out of memory. */
char **desktop_split_list(const char *text) {
    size_t cap = 2;
    for (const char *c = text; *c; c++) cap += *c == ',';
    char **list = calloc(cap, sizeof *list);
    if (!list) return NULL;
    size_t count = 0;
    const char *at = text;
    for (;;) {
        const char *end = strchr(at, ',');
        if (!end) end = at + strlen(at);
        const char *first = at, *last = end;
        while (first < last && (*first == ' ' || *first == '\t')) first++;
        while (last > first && (last[-1] == ' ' || last[-1] == '\t')) last--;
        if (last > first) {
            if (!(list[count] = strndup(first, (size_t)(last - first)))) {
                desktop_free_list(list);
                return NULL;
            }
            count++;
        }
        if (!*end) break;
        at = end + 1;
    }
    return list;
}

void desktop_free_list(char **list) {
    if (!list) return;
    for (char **item = list; *item; item++) free(*item);
    free(list);
}

bool desktop_list_has(char *const *list, const char *item) {
    for (; *list; list++)
        if (strcmp(*list, item) == 0) return true;
    return false;
}
