/*
 * settings.c: reading settings, for every transport plugin (settings.h).
 */
#include "settings.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int transport_read_flag(const ph_host *host, const ph_config *config, const char *key, bool fallback, bool *out) {
    const char *text = host->config_get(config, key);
    if (!text || !*text) {
        *out = fallback;
        return 0;
    }
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0 || strcmp(text, "yes") == 0) *out = true;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0 || strcmp(text, "no") == 0) *out = false;
    else {
        transport_log(host, PH_LOG_ERROR, "setting %s: \"%s\" is not true or false", key, text);
        return -1;
    }
    return 0;
}

int transport_read_number(const ph_host *host, const ph_config *config, const char *key, double fallback, double low,
                          double high, const char *unit, double *out) {
    const char *text = host->config_get(config, key);
    if (!text || !*text) {
        *out = fallback;
        return 0;
    }
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || *end || isnan(value) || value < low || value > high) {
        transport_log(host, PH_LOG_ERROR, "setting %s: \"%s\" is not a number of %s from %g to %g", key, text, unit, low,
                      high);
        return -1;
    }
    *out = value;
    return 0;
}

char **transport_split_list(const char *text) {
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
                transport_free_list(list);
                return NULL;
            }
            count++;
        }
        if (!*end) break;
        at = end + 1;
    }
    return list;
}

void transport_free_list(char **list) {
    if (!list) return;
    for (char **item = list; *item; item++) free(*item);
    free(list);
}

bool transport_list_has(char *const *list, const char *item) {
    for (; *list; list++)
        if (strcmp(*list, item) == 0) return true;
    return false;
}

int transport_list_count(char *const *list) {
    int count = 0;
    while (list[count]) count++;
    return count;
}
