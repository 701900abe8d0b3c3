/* The descriptor and entry of a test plugin (the probe, the worker), included
 * last: its name is NAME, its description DESCRIPTION, its create and destroy
 * are `create` and `destroy`, and it has the handlers of the roles the build
 * asks for:
 * -DROLE_DATA          on_data
 * -DROLE_BACKGROUND    on_background
 * -DROLE_FOREGROUND    on_target and on_mismatch, for the screens in
 *                      -DTARGETS='"a", "b"' (none when it is not defined)
 * -DROLE_TOKEN         on_token
 * -DROLE_ACTION        on_action (ABI 1.1)
 * -DROLE_INTERCEPTOR   get_extension, which answers ph.interceptor/1 (ABI 1.1)
 */

#ifdef ROLE_FOREGROUND
static const char *const targets[] = {
#ifdef TARGETS
    TARGETS,
#endif
    NULL,
};
#endif

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = NAME, .version = "1.0.0", .description = DESCRIPTION,
    .create = create, .destroy = destroy,
#ifdef ROLE_DATA
    .on_data = on_data,
#endif
#ifdef ROLE_BACKGROUND
    .on_background = on_background,
#endif
#ifdef ROLE_FOREGROUND
    .on_target = on_target, .on_mismatch = on_mismatch, .targets = targets,
#endif
#ifdef ROLE_TOKEN
    .on_token = on_token,
#endif
#ifdef ROLE_ACTION
    .on_action = on_action,
#endif
#ifdef ROLE_INTERCEPTOR
    .get_extension = get_extension,
#endif
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
