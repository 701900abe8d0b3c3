/*
 * text.c: the strings only this plugin builds: markup escaping for servers
 * that read body markup. The rest is ../common/text.c.
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
