/*
 * text.h: the strings every transport plugin builds: formatted text and log
 * lines, and problems logged once while they last (JSON string literals
 * are json.h's). Compiled into each plugin (the Makefile adds the .c files
 * of this folder); nothing here is exported.
 */
#ifndef TRANSPORT_TEXT_H
#define TRANSPORT_TEXT_H

#include <pushhost.h>

/* printf into a new string of exactly the right length (free it), or NULL. */
char *transport_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* host->log with a printf format ("out of memory" when the line cannot be made). */
void transport_log(const ph_host *host, ph_log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Logs line unless it is the line this call logged last with the same
 * *said (which keeps a copy of it: free it and set it to NULL when the
 * problem is over, and free it at the end), so that a problem that lasts is logged once. */
void transport_log_once(const ph_host *host, ph_log_level level, char **said, const char *line);

#endif
