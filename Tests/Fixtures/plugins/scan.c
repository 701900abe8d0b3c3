/* A test plugin for the scan of an isolated plugin in a worker: it
 * misbehaves while it loads, in its library's constructor or in
 * ph_plugin_entry, before the host (or the scan's worker) has read its
 * descriptor. Its name is NAME (-DNAME='"scan"'), with one no-op background
 * handler; the defines choose what it does:
 * - CONSTRUCTOR_SEGV   the constructor raises SIGSEGV;
 * - ENTRY_HANG         ph_plugin_entry never returns;
 * - ENTRY_EXIT         ph_plugin_entry calls exit(3);
 * - the constructor appends `PID PPID` to the file that the environment
 *   variable PH_SCAN_PID_LOG names, when it is set;
 * - ENTRY_DIFFERS      ph_plugin_entry names the plugin NAME "-scanned" in
 *   a process started with --scan (a scan's worker), NAME elsewhere;
 * - the constructor attacks the scan's channel (fd 3), before the real
 *   answer: FORGE_RAW writes those bytes as they are (-DFORGE_RAW='"..."'),
 *   FORGE_LENGTH writes a length of that many bytes (a u32) and then
 *   FORGE_FILL bytes of 'x' (0 unless defined), FORGE_ANSWER writes that
 *   JSON text as an answer, its length first; FORGE_EXIT then ends the
 *   process with _exit(0), so that no real answer follows.
 */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noop.h"
#include "process.h"

#ifndef NAME
#define NAME "scan"
#endif
#ifndef FORGE_FILL
#define FORGE_FILL 0
#endif

/* Writes all of `bytes` to fd 3, giving up when it cannot. */
UNUSED static void put(const void *bytes, size_t count) {
    const char *at = bytes;
    while (count > 0) {
        ssize_t written = write(3, at, count);
        if (written <= 0) return;
        at += written;
        count -= (size_t)written;
    }
}

__attribute__((constructor)) static void loaded(void) {
    const char *log = getenv("PH_SCAN_PID_LOG");
    if (log) {
        FILE *out = fopen(log, "a");
        if (out) {
            fprintf(out, "%ld %ld\n", process_id(), parent_id());
            fclose(out);
        }
    }
#ifdef CONSTRUCTOR_SEGV
    raise(SIGSEGV);
#endif
#ifdef FORGE_RAW
    put(FORGE_RAW, sizeof FORGE_RAW - 1);
#endif
#ifdef FORGE_LENGTH
    uint32_t length = (uint32_t)(FORGE_LENGTH);
    put(&length, sizeof length);
    static char fill[64 * 1024];
    memset(fill, 'x', sizeof fill);
    for (size_t left = FORGE_FILL; left > 0;) {
        size_t part = left < sizeof fill ? left : sizeof fill;
        put(fill, part);
        left -= part;
    }
#endif
#ifdef FORGE_ANSWER
    uint32_t size = (uint32_t)(sizeof FORGE_ANSWER - 1);
    put(&size, sizeof size);
    put(FORGE_ANSWER, sizeof FORGE_ANSWER - 1);
#endif
#ifdef FORGE_EXIT
    _exit(0);
#endif
}

/* Whether this process was started with the argument --scan. */
UNUSED static int in_scan(void) {
    FILE *in = fopen("/proc/self/cmdline", "r");
    if (!in) return 0;
    char arguments[4096];
    size_t count = fread(arguments, 1, sizeof arguments - 1, in);
    fclose(in);
    arguments[count] = '\0';
    for (size_t at = 0; at < count; at += strlen(arguments + at) + 1) {
        if (strcmp(arguments + at, "--scan") == 0) return 1;
    }
    return 0;
}

static const ph_plugin plugin = {PH_PLUGIN_HEADER, .name = NAME, .version = "1.0.0", .on_background = on_message};
#ifdef ENTRY_DIFFERS
static const ph_plugin scanned = {PH_PLUGIN_HEADER, .name = NAME "-scanned", .version = "1.0.0", .on_background = on_message};
#endif

PH_EXPORT const ph_plugin *ph_plugin_entry(void) {
#ifdef ENTRY_HANG
    for (;;) pause();
#endif
#ifdef ENTRY_EXIT
    exit(3);
#endif
#ifdef ENTRY_DIFFERS
    if (in_scan()) return &scanned;
#endif
    return &plugin;
}
