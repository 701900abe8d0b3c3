/* legacy_alert.c: a library written long before pushhost, which knows
 * nothing of it (no pushhost.h). The manifest alerts.ffi.json binds its
 * functions to plugin roles; pushhost calls them through libffi. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static char app[64] = "console";
static void (*say)(const char *text);
static int alerts;

/* Called once at start; a nonzero return refuses the plugin. */
int legacy_init(const char *name, void (*log)(const char *text)) {
    snprintf(app, sizeof app, "%s", name);
    say = log;
    return 0;
}

/* Promotions are not alerts. */
bool legacy_is_promo(const char *kind) {
    return kind && strcmp(kind, "promo") == 0;
}

/* Shows one alert (here: a line in pushhost's log). */
int legacy_alert(const char *title, const char *body, int priority) {
    char line[512];
    snprintf(line, sizeof line, "%s ALERT p%d %s: %s", app, priority, title ? title : "(no title)", body ? body : "");
    if (say) say(line);
    alerts++;
    return 0;
}

/* Called once at shutdown. */
void legacy_shutdown(void) {
    char line[64];
    snprintf(line, sizeof line, "%d alerts shown", alerts);
    if (say) say(line);
}
