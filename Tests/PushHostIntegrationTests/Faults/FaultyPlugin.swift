import Foundation

extension PluginSource {
    /// A plugin named `faulty` whose handler for `role` (`on_data` or
    /// `on_background`) misbehaves as a message's `data.fault` says:
    /// `segv` (a write through NULL), `abort`, or `hang` (never returns).
    /// Every other message passes; each call first appends
    /// `HANDLER ID` to the file at the `log` setting.
    static func faulty(role: String) -> String {
        #"""
        #include <pushhost.h>
        #include <signal.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>

        static const ph_host *host;
        static FILE *out;

        static void *create(const ph_host *h, const ph_config *config) {
            host = h;
            out = fopen(h->config_get(config, "log"), "a");
            return out;
        }

        static void misbehave(const char *handler, const ph_message *m) {
            fprintf(out, "%s %s\n", handler, host->message_id(m));
            fflush(out);
            const char *fault = host->message_get(m, "data.fault");
            if (!fault) return;
            if (strcmp(fault, "segv") == 0) *(volatile int *)0 = 1;
            if (strcmp(fault, "abort") == 0) abort();
            if (strcmp(fault, "hang") == 0) for (;;) pause();
        }

        __attribute__((unused)) static ph_verdict on_data(void *self, const ph_message *m) {
            (void)self;
            misbehave("on_data", m);
            return PH_CONTINUE;
        }

        __attribute__((unused)) static void on_background(void *self, const ph_message *m) {
            (void)self;
            misbehave("on_background", m);
        }

        static const ph_plugin plugin = {
            .struct_size = sizeof(ph_plugin), .abi_major = PH_ABI_MAJOR, .abi_minor = PH_ABI_MINOR,
            .name = "faulty", .version = "1", .create = create,
            .\#(role) = \#(role),
        };

        __attribute__((visibility("default"))) const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#
    }
}

extension Scratch {
    /// The `faulty` plugin with its misbehaving handler for `role`, logging
    /// its calls into `faulty.log`: the arguments that load it.
    func faulty(_ role: String = "on_data") throws -> [String] {
        let path = try plugin("faulty.so", PluginSource.faulty(role: role))
        return ["--plugin", path, "--set", "faulty.log=\(file("faulty.log"))"]
    }

    /// The `faulty` plugin's calls so far, `HANDLER ID` each.
    var faultyCalls: [String] {
        read("faulty.log").split(separator: "\n").map(String.init)
    }
}
