/*
 * issues.c: a foreground screen named "issues" that claims the target
 * "issues". All the logic is in ../screen/screen.h (built
 * on ../common/sample.h); a screen plugin only declares its name, its
 * targets and its descriptor.
 */
#define SCREEN_NAME "issues"
#include "../screen/screen.h"

/* The targets this screen matches, NULL-terminated. */
static const char *const targets[] = {"issues", NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = SCREEN_NAME,
    .version = "1.0.0",
    .description = "Foreground screen for the \"issues\" target.",
    .targets = targets,
    .create = screen_create,
    .destroy = sample_destroy,
    .on_target = screen_on_target,
    .on_mismatch = screen_on_mismatch,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
