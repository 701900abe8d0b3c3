/*
 * settings.h: reading a transport plugin's settings (host->config_get):
 * flags, numbers within bounds, and comma-separated lists. A value that
 * does not read is logged with the setting's name and refuses the plugin.
 * Compiled into each plugin, like text.h.
 */
#ifndef TRANSPORT_SETTINGS_H
#define TRANSPORT_SETTINGS_H

#include <pushhost.h>

#include <stdbool.h>

/* A boolean setting (true/false, 1/0, yes/no); fallback when unset. 0, or -1 (logged). */
int transport_read_flag(const ph_host *host, const ph_config *config, const char *key, bool fallback, bool *out);

/* A number setting within [low, high], in unit (for the log line); fallback
 * when unset. 0, or -1 (logged). */
int transport_read_number(const ph_host *host, const ph_config *config, const char *key, double fallback, double low,
                          double high, const char *unit, double *out);

/* "a, b,c" -> {"a", "b", "c", NULL}; blanks around items are dropped, and
 * empty items too. NULL when out of memory. */
char **transport_split_list(const char *text);
void transport_free_list(char **list);
bool transport_list_has(char *const *list, const char *item);
/* The number of items before the NULL. */
int transport_list_count(char *const *list);

#endif
