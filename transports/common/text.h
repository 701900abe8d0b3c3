/*
 * text.h: the strings every transport plugin builds: formatted text and log
 * lines, and JSON string literals for the records it submits. Compiled into
 * each plugin (the Makefile adds the .c files of this folder); nothing here
 * is exported.
 */
#ifndef TRANSPORT_TEXT_H
#define TRANSPORT_TEXT_H

#include <pushhost.h>

/* printf into a new string of exactly the right length (free it), or NULL. */
char *transport_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* host->log with a printf format ("out of memory" when the line cannot be made). */
void transport_log(const ph_host *host, ph_log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* s as a JSON string, quotes included, in a new string (free it), or NULL:
 * a quote, a backslash or a control character is escaped. */
char *transport_json_quote(const char *s);

#endif
