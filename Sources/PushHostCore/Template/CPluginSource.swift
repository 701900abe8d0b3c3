/// The C source of a template plugin: one handler per role, in one file.
struct CPluginSource {
    let template: PluginTemplate

    var text: String {
        let roles = template.roles.map(\.rawValue).joined(separator: ", ")
        var parts = [
            """
            /*
             * \(template.name).c: a pushhost plugin (roles: \(roles)), made by
             * `pushhost new plugin`. Build it with `make`, test it with `make test`.
             * The ABI is <pushhost.h> and docs/abi.md in the pushhost repository.
             */
            #include <pushhost.h>

            """,
            includes,
            state,
            helpers,
            create,
        ]
        if template.plays(.data) { parts.append(data) }
        if template.plays(.background) { parts.append(background) }
        if template.plays(.screen) { parts.append(screen) }
        if template.plays(.token) { parts.append(token) }
        if template.plays(.action) { parts.append(action) }
        if template.plays(.interceptor) { parts.append(interceptor) }
        if template.plays(.source) { parts.append(source) }
        if offersExtensions { parts.append(getExtension) }
        parts.append(descriptor)
        return parts.joined(separator: "\n")
    }

    private var offersExtensions: Bool { template.plays(.interceptor) || template.plays(.source) }

    private var includes: String {
        var lines = ["#include <stdarg.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"]
        if template.plays(.source) { lines = ["#include <pthread.h>", "#include <stdatomic.h>"] + lines }
        return lines.joined(separator: "\n") + "\n"
    }

    private var state: String {
        var fields = ["    const ph_host *host;"]
        if template.plays(.interceptor) {
            fields.append("    const ph_chain_api *chain; /* ph.chain/1, the host's */")
        }
        if template.plays(.source) {
            fields += [
                "    const ph_intake *intake;   /* ph.intake/1, the host's */",
                "    char *records;             /* the setting records: a file of records, or NULL */",
                "    pthread_t thread;          /* submits them, from start until stop */",
                "    int started;",
                "    atomic_bool stopping;",
            ]
        }
        return """
            /* One instance's state, made by create and freed by destroy. */
            typedef struct plugin_state {
            \(fields.joined(separator: "\n"))
            } plugin_state;

            """
    }

    /// The helpers the handlers use: `say` for those that log, `field` for
    /// those that read a message's field.
    private var helpers: String {
        var text = ""
        if uses([.background, .screen, .token, .action, .source]) {
            text += """
                /* Writes one line to the host's log (marked with the plugin's name). */
                static void say(const ph_host *host, ph_log_level level, const char *format, ...) {
                    char line[512];
                    va_list arguments;
                    va_start(arguments, format);
                    vsnprintf(line, sizeof line, format, arguments);
                    va_end(arguments);
                    host->log(host, level, line);
                }

                """
        }
        if uses([.data, .background, .screen, .interceptor]) {
            text += """
                /* A string field of m, or "" when it has none. */
                static const char *field(const ph_host *host, const ph_message *m, const char *path) {
                    const char *value = host->message_get(m, path);
                    return value ? value : "";
                }

                """
        }
        return text
    }

    /// Whether the plugin plays any of `roles`.
    private func uses(_ roles: [PluginTemplate.Role]) -> Bool {
        roles.contains(where: template.plays)
    }

    private var create: String {
        var body = [
            "    plugin_state *self = calloc(1, sizeof *self);",
            "    if (!self) {",
            "        host->log(host, PH_LOG_ERROR, \"out of memory\");",
            "        return NULL;",
            "    }",
            "    self->host = host;",
        ]
        if template.plays(.interceptor) {
            body += [
                "    /* A host table newer than 1.0: use a field only when struct_size covers it. */",
                "    self->chain = host->get_extension(host, PH_EXT_CHAIN);",
                "    if (!self->chain || !PH_HAS_FIELD(ph_chain_api, self->chain, stop)) {",
                "        host->log(host, PH_LOG_ERROR, \"this host has no ph.chain/1\");",
                "        free(self);",
                "        return NULL;",
                "    }",
            ]
        }
        if template.plays(.source) {
            body += [
                "    self->intake = host->get_extension(host, PH_EXT_INTAKE);",
                "    if (!self->intake || !PH_HAS_FIELD(ph_intake, self->intake, submit_record)) {",
                "        host->log(host, PH_LOG_ERROR, \"this host has no ph.intake/1 with submit_record (ABI 1.2)\");",
                "        free(self);",
                "        return NULL;",
                "    }",
                "    const char *records = host->config_get(config, \"records\");",
                "    if (records && !(self->records = strdup(records))) {",
                "        host->log(host, PH_LOG_ERROR, \"out of memory\");",
                "        free(self);",
                "        return NULL;",
                "    }",
            ]
        } else {
            body.append("    (void)config; /* settings: host->config_get(config, \"KEY\") */")
        }
        body.append("    return self;")
        var destroy = ["    plugin_state *self = p;"]
        if template.plays(.source) { destroy.append("    free(self->records);") }
        destroy.append("    free(self);")
        return """
            /* Called once, before any message. NULL refuses the plugin (say why first). */
            static void *plugin_create(const ph_host *host, const ph_config *config) {
            \(body.joined(separator: "\n"))
            }

            /* Called once at shutdown, after every other call. */
            static void plugin_destroy(void *p) {
            \(destroy.joined(separator: "\n"))
            }

            """
    }

    private var data: String {
        """
        /* The data stage: before any UI handler. "quiet":"yes" in data: handled here. */
        static ph_verdict plugin_on_data(void *p, const ph_message *m) {
            plugin_state *self = p;
            return strcmp(field(self->host, m, "data.quiet"), "yes") == 0 ? PH_SUPPRESS : PH_CONTINUE;
        }

        """
    }

    private var background: String {
        """
        /* The app is in the background (or no screen is visible). */
        static void plugin_on_background(void *p, const ph_message *m) {
            plugin_state *self = p;
            const ph_host *host = self->host;
            say(host, PH_LOG_INFO, "background %s: %s", host->message_id(m), field(host, m, "notification.title"));
        }

        """
    }

    private var screen: String {
        """
        /* The screen's targets: messages aimed at one of them come to on_target
         * while it is visible. */
        static const char *const targets[] = {"\(template.name)", NULL};

        static void plugin_on_target(void *p, const ph_message *m) {
            plugin_state *self = p;
            const ph_host *host = self->host;
            say(host, PH_LOG_INFO, "target %s: %s", host->message_id(m), field(host, m, "notification.title"));
        }

        /* This screen is on top, and no visible screen claims the message's target. */
        static void plugin_on_mismatch(void *p, const ph_message *m) {
            plugin_state *self = p;
            const ph_host *host = self->host;
            const char *target = host->message_target(m);
            say(host, PH_LOG_INFO, "mismatch %s (target %s)", host->message_id(m), target ? target : "none");
        }

        """
    }

    private var token: String {
        """
        /* A new registration token; previous is NULL for the first one. */
        static void plugin_on_token(void *p, const char *token, const char *previous) {
            plugin_state *self = p;
            say(self->host, PH_LOG_INFO, "token %s previous %s", token, previous ? previous : "-");
        }

        """
    }

    private var action: String {
        """
        /* A person acted on the notification of m: "tap", or one of its actions. */
        static void plugin_on_action(void *p, const ph_message *m, const char *action, const char *input) {
            plugin_state *self = p;
            const ph_host *host = self->host;
            if (input) say(host, PH_LOG_INFO, "action %s on %s: %s", action, host->message_id(m), input);
            else say(host, PH_LOG_INFO, "action %s on %s", action, host->message_id(m));
        }

        """
    }

    private var interceptor: String {
        """
        /* Sees each push message before the data stage, and ends with exactly one
         * call of proceed or stop. "hold":"yes" in data: stopped here. */
        static void plugin_intercept(void *p, ph_chain *chain) {
            plugin_state *self = p;
            const ph_message *m = self->chain->message(chain);
            if (strcmp(field(self->host, m, "data.hold"), "yes") == 0) {
                self->chain->stop(chain, PH_SUPPRESS, "held back by \(template.name)");
                return;
            }
            self->chain->proceed(chain);
        }

        static const ph_interceptor interceptor = {
            .struct_size = sizeof(ph_interceptor),
            .intercept = plugin_intercept,
        };

        """
    }

    private var source: String {
        """
        /* What a submitted record's done learns: which record it was. */
        typedef struct record_context {
            const ph_host *host;
            unsigned long number;
        } record_context;

        static void record_done(void *p, ph_result result, const char *report_line) {
            record_context *record = p;
            (void)report_line;
            const char *said = result == PH_DONE ? "done" : result == PH_RETRY ? "retry" : "rejected";
            say(record->host, PH_LOG_INFO, "record %lu: %s", record->number, said);
            free(record);
        }

        /* The source's thread: one record a line of the records file. Never mark
         * bytes from outside as a host event (flags 0). */
        static void *submit_records(void *p) {
            plugin_state *self = p;
            const ph_host *host = self->host;
            FILE *file = fopen(self->records, "r");
            if (!file) {
                say(host, PH_LOG_ERROR, "cannot open %s", self->records);
                return NULL;
            }
            char *line = NULL;
            size_t size = 0;
            ssize_t length;
            unsigned long number = 0;
            while (!atomic_load(&self->stopping) && (length = getline(&line, &size, file)) >= 0) {
                if (length > 0 && line[length - 1] == '\\n') line[--length] = '\\0';
                record_context *record = malloc(sizeof *record);
                if (!record) break;
                *record = (record_context){host, ++number};
                /* Waits while the host is full; -1 once it is stopping. */
                if (self->intake->submit_record(host, line, (size_t)length, 0, record_done, record) != 0) {
                    free(record);
                    break;
                }
            }
            free(line);
            fclose(file);
            return NULL;
        }

        static int source_start(void *p) {
            plugin_state *self = p;
            if (!self->records) return 0; /* nothing to read: the source stays quiet */
            if (pthread_create(&self->thread, NULL, submit_records, self) != 0) {
                self->host->log(self->host, PH_LOG_ERROR, "cannot start the source's thread");
                return -1;
            }
            self->started = 1;
            return 0;
        }

        static void source_stop(void *p) {
            plugin_state *self = p;
            atomic_store(&self->stopping, 1);
            if (self->started) pthread_join(self->thread, NULL);
            self->started = 0;
        }

        static const ph_source source = {
            .struct_size = sizeof(ph_source),
            .start = source_start,
            .stop = source_stop,
        };

        """
    }

    private var getExtension: String {
        var lines: [String] = []
        if template.plays(.interceptor) { lines.append("    if (strcmp(id, PH_EXT_INTERCEPTOR) == 0) return &interceptor;") }
        if template.plays(.source) { lines.append("    if (strcmp(id, PH_EXT_SOURCE) == 0) return &source;") }
        return """
            /* The extensions this plugin offers, by id. */
            static const void *plugin_get_extension(void *p, const char *id) {
                (void)p;
            \(lines.joined(separator: "\n"))
                return NULL;
            }

            """
    }

    private var descriptor: String {
        var declared: [String] = []
        if template.plays(.interceptor) { declared += ["PH_EXT_INTERCEPTOR", "PH_EXT_CHAIN"] }
        if template.plays(.source) { declared += ["PH_EXT_SOURCE", "PH_EXT_INTAKE"] }
        var fields = [
            "    PH_PLUGIN_HEADER,",
            "    .name = \"\(template.name)\",",
            "    .version = \"0.1.0\",",
            "    .description = \"\(template.name): roles \(template.roles.map(\.rawValue).joined(separator: ", ")).\",",
            "    .create = plugin_create,",
            "    .destroy = plugin_destroy,",
        ]
        if template.plays(.data) { fields.append("    .on_data = plugin_on_data,") }
        if template.plays(.background) { fields.append("    .on_background = plugin_on_background,") }
        if template.plays(.screen) {
            fields += ["    .targets = targets,", "    .on_target = plugin_on_target,", "    .on_mismatch = plugin_on_mismatch,"]
        }
        if template.plays(.token) { fields.append("    .on_token = plugin_on_token,") }
        if template.plays(.action) { fields.append("    .on_action = plugin_on_action,") }
        if offersExtensions { fields.append("    .get_extension = plugin_get_extension,") }
        fields.append("    .extensions = extensions,")
        return """
            /* The extensions it offers and the host's it uses (ABI 1.2), so that
             * `pushhost plugins` knows them without creating the plugin. */
            static const char *const extensions[] = {\((declared + ["NULL"]).joined(separator: ", "))};

            static const ph_plugin plugin = {
            \(fields.joined(separator: "\n"))
            };

            PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }

            """
    }
}
