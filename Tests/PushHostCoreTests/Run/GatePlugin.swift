import PushHostPipeline

/// The C source of two plugins for the pipeline's tests:
///
/// - `gate`, a data plugin and an interceptor that leave every decision to
///   the test: on_data answers PH_PENDING for a message with `data.pending`
///   and keeps it, and intercept holds a message with `data.hold` and keeps
///   its chain (every other message gets PH_CONTINUE, or is proceeded at
///   once). The test then calls `gate_complete(n, verdict)` to complete the
///   n-th pending message (counted from 0 in arrival order), and
///   `gate_release(n)` to proceed the n-th held chain, or
///   `gate_stop(n, verdict, reason)` to stop it, in any order.
///   `gate_pending()` and `gate_held()` say how many were kept.
/// - `shelf`, a background plugin that counts its calls (`shelf_calls()`).
enum GatePlugin {
    typealias Complete = @convention(c) (Int32, Int32) -> Void
    typealias Release = @convention(c) (Int32) -> Void
    typealias Stop = @convention(c) (Int32, Int32, UnsafePointer<CChar>) -> Void
    typealias Count = @convention(c) () -> Int32

    static let gate = #"""
        #include <pushhost.h>
        #include <string.h>

        static const ph_host *host;
        static const ph_chain_api *chains;
        static const ph_message *pending[64];
        static int pending_count;
        static ph_chain *held[64];
        static int held_count;

        static void *create(const ph_host *h, const ph_config *config) {
            (void)config;
            host = h;
            chains = h->get_extension(h, PH_EXT_CHAIN);
            return (void *)h;
        }

        static void destroy(void *self) { (void)self; }

        static ph_verdict on_data(void *self, const ph_message *m) {
            (void)self;
            if (!host->message_get(m, "data.pending") || pending_count == 64) return PH_CONTINUE;
            pending[pending_count++] = m;
            return PH_PENDING;
        }

        static void intercept(void *self, ph_chain *chain) {
            (void)self;
            if (!host->message_get(chains->message(chain), "data.hold") || held_count == 64) {
                chains->proceed(chain);
                return;
            }
            held[held_count++] = chain;
        }

        static const ph_interceptor interceptor = { .struct_size = sizeof(ph_interceptor), .intercept = intercept };

        static const void *get_extension(void *self, const char *id) {
            (void)self;
            return strcmp(id, PH_EXT_INTERCEPTOR) == 0 ? &interceptor : NULL;
        }

        PH_EXPORT int gate_pending(void) { return pending_count; }
        PH_EXPORT int gate_held(void) { return held_count; }
        PH_EXPORT void gate_complete(int index, int verdict) { host->complete(host, pending[index], (ph_verdict)verdict); }
        PH_EXPORT void gate_release(int index) { chains->proceed(held[index]); }
        PH_EXPORT void gate_stop(int index, int verdict, const char *reason) { chains->stop(held[index], (ph_verdict)verdict, reason); }

        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "gate", .version = "1.0.0", .create = create, .destroy = destroy,
            .on_data = on_data, .get_extension = get_extension,
        };

        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    static let shelf = #"""
        #include <pushhost.h>

        static int calls;

        static void *create(const ph_host *h, const ph_config *config) { (void)config; return (void *)h; }
        static void destroy(void *self) { (void)self; }
        static void on_background(void *self, const ph_message *m) { (void)self; (void)m; calls++; }

        PH_EXPORT int shelf_calls(void) { return calls; }

        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "shelf", .version = "1.0.0", .create = create, .destroy = destroy,
            .on_background = on_background,
        };

        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    /// The stages with `gate` then `shelf`, each built in `folder`.
    static func stages(in folder: TestFolder, options: RunOptions = RunOptions()) throws -> Stages {
        try Stages([folder.plugin("gate", gate), folder.plugin("shelf", shelf)], in: folder, options: options)
    }
}
