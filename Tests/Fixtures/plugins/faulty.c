/* A plugin named `faulty` whose handler HANDLER (-DHANDLER=on_data, the
 * default, or -DHANDLER=on_background) misbehaves as a message's `data.fault`
 * says: `segv` (a write through NULL), `abort`, or `hang` (never returns).
 * Every other message passes; each call first appends `HANDLER ID` to the
 * file at the `log` setting, flushed at once.
 */
#ifndef HANDLER
#define HANDLER on_data
#endif

#include <pushhost.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ph_host *host;
static FILE *out;

static void *create(const ph_host *h, const ph_config *config) {
    host = h;
    out = fopen(h->config_get(config, "log"), "a");
    return out;
}

static void misbehave(const char *handler, const ph_message *m) {
    fprintf(out, "%s %s\n", handler, host->message_id(m));
    fflush(out);
    const char *fault = host->message_get(m, "data.fault");
    if (!fault) return;
    if (strcmp(fault, "segv") == 0) *(volatile int *)0 = 1;
    if (strcmp(fault, "abort") == 0) abort();
    if (strcmp(fault, "hang") == 0) for (;;) pause();
}

__attribute__((unused)) static ph_verdict on_data(void *self, const ph_message *m) {
    (void)self;
    misbehave("on_data", m);
    return PH_CONTINUE;
}

__attribute__((unused)) static void on_background(void *self, const ph_message *m) {
    (void)self;
    misbehave("on_background", m);
}

static const ph_plugin plugin = {
    .struct_size = sizeof(ph_plugin), .abi_major = PH_ABI_MAJOR, .abi_minor = PH_ABI_MINOR,
    .name = "faulty", .version = "1", .create = create,
    .HANDLER = HANDLER,
};

__attribute__((visibility("default"))) const ph_plugin *ph_plugin_entry(void) { return &plugin; }
