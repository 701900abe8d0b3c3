/*
 * noop.c: plugins that do nothing, for the throughput benchmark. Built
 * once per role with -DROLE_DATA, -DROLE_BACKGROUND or -DROLE_SCREEN (a
 * screen claiming the five benchmark targets), and -DNAME="...". With
 * -DROLE_PENDING (for Benchmarks/pending-memory), a data plugin that
 * answers PH_PENDING and never completes. With -DROLE_INTERCEPTOR, an
 * interceptor that proceeds every message at once, without on_outcome.
 */
#include <pushhost.h>

#include <string.h>

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

#if defined(ROLE_INTERCEPTOR)
static const ph_chain_api *chain;

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    chain = host->get_extension(host, PH_EXT_CHAIN);
    return chain ? (void *)host : NULL;
}

static void intercept(void *self, ph_chain *link) {
    (void)self;
    chain->proceed(link);
}

static const ph_interceptor interceptor = {sizeof(ph_interceptor), intercept, NULL};

static const void *get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_INTERCEPTOR) == 0 ? &interceptor : NULL;
}
#endif

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
#elif defined(ROLE_INTERCEPTOR)
    .create = create,
    .get_extension = get_extension,
#endif
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) {
    (void)on_data;
    (void)on_message;
    (void)targets;
    return &plugin;
}
