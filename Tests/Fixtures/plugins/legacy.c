/* A plain C library that knows nothing of pushhost.h, as an ffi manifest
 * binds it. `legacy_open(path, code, log)` opens the file at `path` for
 * appending, keeps `log`, logs `opened`, and returns `code`; every function
 * then appends one line to that file (standard error before init)
 * describing its call, with its arguments as received (NULL as `(null)`),
 * flushed at once.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define API __attribute__((visibility("default")))

static FILE *out;
static void (*logger)(const char *text);

static const char *s(const char *text) { return text ? text : "(null)"; }

__attribute__((format(printf, 1, 2))) static void line(const char *format, ...) {
    FILE *to = out ? out : stderr;
    va_list args;
    va_start(args, format);
    vfprintf(to, format, args);
    va_end(args);
    fputc('\n', to);
    fflush(to);
}

static void say(const char *what, const char *text) {
    char buffer[512];
    snprintf(buffer, sizeof buffer, "%s %s", what, s(text));
    if (logger) logger(buffer);
}

API int32_t legacy_open(const char *path, int32_t code, void (*log)(const char *text)) {
    if (path) out = fopen(path, "a");
    line("legacy_open path=%s code=%" PRId32 " log=%s", s(path), code, log ? "set" : "(null)");
    logger = log;
    say("opened", path);
    return code;
}

API void legacy_close(void) {
    line("legacy_close");
    say("closing", "now");
    logger = NULL;
    if (out) fclose(out);
    out = NULL;
}

API int32_t legacy_alert(const char *title, const char *body, int32_t priority) {
    line("legacy_alert title=%s body=%s priority=%" PRId32, s(title), s(body), priority);
    say("alert", title);
    return 0;
}

/* Returns its count, so the message's data.count picks the verdict. */
API int32_t legacy_check(const char *id, int64_t count) {
    line("legacy_check id=%s count=%" PRId64, s(id), count);
    return (int32_t)count;
}

API bool legacy_ready(const char *id, bool ready) {
    line("legacy_ready id=%s ready=%s", s(id), ready ? "true" : "false");
    return ready;
}

API void legacy_show(const char *message) { line("legacy_show %s", s(message)); }

API void legacy_token(const char *token, const char *previous) {
    line("legacy_token token=%s previous=%s", s(token), s(previous));
}

/* Exactly length bytes of data: a wrong length shows. */
API void legacy_bytes(const void *data, size_t length) {
    FILE *to = out ? out : stderr;
    fprintf(to, "legacy_bytes length=%zu data=", length);
    if (data) fwrite(data, 1, length, to); else fputs("(null)", to);
    fputc('\n', to);
    fflush(to);
}

API void legacy_numbers(int8_t a, uint8_t b, int64_t c, double d, bool e) {
    line("legacy_numbers int8=%d uint8=%u int64=%" PRId64 " double=%g bool=%s",
         (int)a, (unsigned)b, c, d, e ? "true" : "false");
}
