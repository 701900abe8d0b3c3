/*
 * issues.c: a foreground screen named "issues" that claims the target
 * "issues" and takes the actions on its notifications (on_action): a tap
 * on the notification, or one of its buttons, such as a reply with the text
 * typed into it. All the logic is in ../screen/screen.h (built on
 * ../common/sample.h); a screen plugin only declares its name, its targets
 * and its descriptor.
 *
 * Setting:  path  file to append to (optional; default: host->log at info)
 * Output:   issues target <id> <title or ->
 *           issues mismatch <id> <target or ->
 *           issues action <id> tap                 (the notification was tapped)
 *           issues action <id> reply "<input>"     (a reply action, its text quoted)
 */
#define SCREEN_NAME "issues"
#include "../screen/screen.h"

/* The targets this screen matches, NULL-terminated. */
static const char *const targets[] = {"issues", NULL};

/* It offers and uses no extension (ABI 1.2). */
static const char *const extensions[] = {NULL};

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
    .on_action = screen_on_action,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
