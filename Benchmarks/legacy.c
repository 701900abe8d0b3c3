/*
 * legacy.c: a plain C library that knows nothing of pushhost (it never
 * includes pushhost.h), for the ffi handler benchmarks. Benchmarks/legacy.ffi.json
 * binds legacy_fields as a data handler to the message's target, data.title,
 * data.body and priority: the same four reads as Benchmarks/fields.c, so
 * that the two differ only in how the strings reach the C code (an ffi call
 * with the host filling the arguments, against message_target and
 * message_get through the host table). It adds up their lengths, so that no
 * read can be left out, and returns 0 (continue). legacy_open(out) starts
 * counting; legacy_close writes "messages N bytes B" to `out`, when given,
 * as fields.c does at destroy.
 *
 * Built as liblegacy.so beside the manifest:
 *     cc -std=c11 -O2 -shared -fPIC Benchmarks/legacy.c -o liblegacy.so
 */
#define _POSIX_C_SOURCE 200809L /* strdup under -std=c11 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *legacy_out;
static unsigned long long legacy_messages, legacy_bytes;

static size_t length(const char *text) { return text ? strlen(text) : 0; }

/* Starts counting; `out` (borrowed for the call, NULL for none) is where
 * legacy_close writes the counts. */
int legacy_open(const char *out) {
    free(legacy_out);
    legacy_out = out ? strdup(out) : NULL;
    if (out && !legacy_out) return -1;
    legacy_messages = legacy_bytes = 0;
    return 0;
}

/* One message: adds up the lengths of its four fields (NULL when absent). */
int legacy_fields(const char *target, const char *title, const char *body, const char *priority) {
    legacy_messages++;
    legacy_bytes += length(target) + length(title) + length(body) + length(priority);
    return 0;
}

/* Writes "messages N bytes B" to the `out` of legacy_open, when given. */
void legacy_close(void) {
    if (!legacy_out) return;
    FILE *out = fopen(legacy_out, "w");
    if (out) {
        fprintf(out, "messages %llu bytes %llu\n", legacy_messages, legacy_bytes);
        fclose(out);
    } else {
        fprintf(stderr, "legacy: cannot write %s\n", legacy_out);
    }
    free(legacy_out);
    legacy_out = NULL;
}
