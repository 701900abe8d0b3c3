/*
 * supplies.c: a foreground screen named "supplies" that claims the target
 * "supplies". All the logic is in ../screen/screen.h (built
 * on ../common/sample.h); a screen plugin only declares its name, its
 * targets and its descriptor.
 */
#define SCREEN_NAME "supplies"
#include "../screen/screen.h"

/* The targets this screen matches, NULL-terminated. */
static const char *const targets[] = {"supplies", NULL};

/* It offers and uses no extension (ABI 1.2). */
static const char *const extensions[] = {NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = SCREEN_NAME,
    .version = "1.0.0",
    .description = "Foreground screen for the \"supplies\" target.",
    .targets = targets,
    .create = screen_create,
    .destroy = sample_destroy,
    .on_target = screen_on_target,
    .on_mismatch = screen_on_mismatch,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
