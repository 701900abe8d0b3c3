/*
 * newer.c: a background plugin built against a header newer than this
 * host's, as a plugin author on a later pushhost would build it: the test
 * makes that header by appending a field `future` to ph_host, ph_intake,
 * ph_chain_api and ph_state, with PH_ABI_MINOR one above. To load in older
 * hosts too, the plugin declares the older minor 1.2 and asks PH_HAS_FIELD
 * before it would use a field: at create it writes, to the file its `out`
 * setting names, whether each table covers its last field of 1.2 and its
 * `future`, then one line per message it gets.
 */
#include <pushhost.h>

#include <stdio.h>

static FILE *out;

/* Writes "TABLE FIELD yes|no". */
static void covers(const char *table, const char *field, int yes) {
    fprintf(out, "%s %s %s\n", table, field, yes ? "yes" : "no");
}

static void *newer_create(const ph_host *host, const ph_config *config) {
    const char *path = host->config_get(config, "out");
    if (!path || !(out = fopen(path, "w"))) return NULL;
    covers("ph_host", "fail", PH_HAS_FIELD(ph_host, host, fail));
    covers("ph_host", "future", PH_HAS_FIELD(ph_host, host, future));
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    covers("ph_intake", "submit_record", intake && PH_HAS_FIELD(ph_intake, intake, submit_record));
    covers("ph_intake", "future", intake && PH_HAS_FIELD(ph_intake, intake, future));
    const ph_chain_api *chain = host->get_extension(host, PH_EXT_CHAIN);
    covers("ph_chain_api", "stop", chain && PH_HAS_FIELD(ph_chain_api, chain, stop));
    covers("ph_chain_api", "future", chain && PH_HAS_FIELD(ph_chain_api, chain, future));
    const ph_state *state = host->get_extension(host, PH_EXT_STATE);
    covers("ph_state", "directory", state && PH_HAS_FIELD(ph_state, state, directory));
    covers("ph_state", "future", state && PH_HAS_FIELD(ph_state, state, future));
    fflush(out);
    return out;
}

static void newer_destroy(void *self) { fclose(self); }

static void newer_on_background(void *self, const ph_message *m) {
    (void)m;
    fputs("background\n", self);
    fflush(self);
}

static const ph_plugin plugin = {
    .struct_size = sizeof(ph_plugin),
    .abi_major = 1,
    .abi_minor = 2,
    .name = "newer",
    .version = "1.0.0",
    .create = newer_create,
    .destroy = newer_destroy,
    .on_background = newer_on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
