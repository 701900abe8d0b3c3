/*
 * noop.c: plugins that do nothing, for the throughput benchmark. Built
 * once per role with -DROLE_DATA, -DROLE_BACKGROUND or -DROLE_SCREEN (a
 * screen claiming the five benchmark targets), and -DNAME="...". With
 * -DROLE_PENDING (for Benchmarks/pending-memory), a data plugin that
 * answers PH_PENDING and never completes.
 */
#include <pushhost.h>

static ph_verdict on_data(void *self, const ph_message *m) {
    (void)self;
    (void)m;
#if defined(ROLE_PENDING)
    return PH_PENDING;
#else
    return PH_CONTINUE;
#endif
}

static void on_message(void *self, const ph_message *m) {
    (void)self;
    (void)m;
}

static const char *const targets[] = {"issues", "supplies", "orders", "alerts", "chat", NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = NAME,
    .version = "1.0.0",
    .description = "Does nothing, fast.",
#if defined(ROLE_DATA) || defined(ROLE_PENDING)
    .on_data = on_data,
#elif defined(ROLE_BACKGROUND)
    .on_background = on_message,
#elif defined(ROLE_SCREEN)
    .targets = targets,
    .on_target = on_message,
    .on_mismatch = on_message,
#endif
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) {
    (void)on_data;
    (void)on_message;
    (void)targets;
    return &plugin;
}
