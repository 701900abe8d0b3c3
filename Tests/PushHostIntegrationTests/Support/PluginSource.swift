/// C sources of small plugins that tests build with `cc`, as a third-party
/// author would.
enum PluginSource {
    /// A plugin whose descriptor is `fields` (designated initializers, after
    /// `PH_PLUGIN_HEADER` unless `header` replaces it), with `prelude` before it.
    static func descriptor(_ fields: String, header: String = "PH_PLUGIN_HEADER", prelude: String = "") -> String {
        """
        #include <pushhost.h>
        #include <stdio.h>
        #include <stdlib.h>
        \(prelude)
        static const ph_plugin plugin = { \(header), \(fields) };
        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """
    }

    /// Handlers that do nothing, to give a descriptor roles.
    static let noopHandlers = """
        #define UNUSED __attribute__((unused))
        UNUSED static ph_verdict on_data(void *self, const ph_message *m) { (void)self; (void)m; return PH_CONTINUE; }
        UNUSED static void on_message(void *self, const ph_message *m) { (void)self; (void)m; }
        UNUSED static void on_token(void *self, const char *t, const char *p) { (void)self; (void)t; (void)p; }
        """

    /// A background plugin named `name` that appends `create`, its settings
    /// `keys` (as key=value) and `destroy` to the file at its `log` setting.
    static func recorder(_ name: String, keys: [String] = []) -> String {
        let settings = keys.map { key in
            #"fprintf(out, "\#(key)=%s\n", h->config_get(c, "\#(key)") ? h->config_get(c, "\#(key)") : "(unset)");"#
        }.joined(separator: "\n    ")
        return descriptor(
            #".name = "\#(name)", .version = "2.3.4", .create = create, .destroy = destroy, .on_background = on_message"#,
            prelude: """
                \(noopHandlers)
                static FILE *out;
                static void *create(const ph_host *h, const ph_config *c) {
                    out = fopen(h->config_get(c, "log"), "a");
                    if (!out) return NULL;
                    fprintf(out, "create\\n");
                    \(settings)
                    fflush(out);
                    return out;
                }
                static void destroy(void *self) { fprintf(self, "destroy\\n"); fclose(self); }
                """)
    }
}
