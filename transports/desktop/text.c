/*
 * text.c: the strings only this plugin builds: markup escaping for servers
 * that read body markup, and comma-separated lists (the targets setting).
 * The rest is ../common/text.c.
 */
#include "desktop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
