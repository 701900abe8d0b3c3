import Foundation
import Testing

/// A source plugin built against the 1.1 header (kept in
/// Tests/Fixtures/pushhost-1.1) works unchanged in this 1.2 host: its
/// `submit` hands over messages; a host event it submits, which 1.1 had no
/// way to mark as its own, is rejected; `done` comes once for each.
@Suite struct ABI11CompatibilityTests {
    static let include11 = Paths.fixtures.appendingPathComponent("pushhost-1.1").path

    /// A source that submits, from its own thread, a message and then a token
    /// event through 1.1's `submit`, and writes `done N RESULT` to `out`.
    static let source = #"""
        #include <pushhost.h>
        #include <pthread.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        static const ph_host *host;
        static const ph_intake *intake;
        static FILE *out;
        static pthread_t thread;

        static void done(void *ctx, ph_result result, const char *line) {
            (void)line;
            fprintf(out, "done %ld %d\n", (long)(intptr_t)ctx, (int)result);
            fflush(out);
        }

        static void *submitting(void *p) {
            (void)p;
            const char *records[] = {"{\"message_id\":\"old-1\",\"data\":{}}", "{\"pushhost\":\"token\",\"token\":\"T-old\"}"};
            for (long n = 0; n < 2; n++) intake->submit(host, records[n], strlen(records[n]), done, (void *)(intptr_t)(n + 1));
            return NULL;
        }

        static void *create(const ph_host *h, const ph_config *config) {
            host = h;
            intake = h->get_extension(h, PH_EXT_INTAKE);
            const char *path = h->config_get(config, "out");
            out = path ? fopen(path, "a") : NULL;
            return intake && out && intake->struct_size >= sizeof(ph_intake) ? (void *)1 : NULL;
        }
        static int start(void *self) { (void)self; return pthread_create(&thread, NULL, submitting, NULL) == 0 ? 0 : -1; }
        static void stop(void *self) { (void)self; }
        static void destroy(void *self) { (void)self; pthread_join(thread, NULL); fclose(out); }
        static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};
        static const void *get_extension(void *self, const char *id) { (void)self; return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL; }
        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "old-source", .version = "1.1.0",
            .create = create, .destroy = destroy, .get_extension = get_extension,
        };
        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    @Test func a11SourceWorksAndItsHostEventIsRejected() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("old-source.so", Self.source, include: Self.include11)
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", file])
        #expect(listing.stdout.contains(#""abi":"1.1""#), "\(listing.stdout)")
        let host = try SourcePluginTests.startHost(
            scratch, ["--plugin", file, "--set", "old-source.out=\(scratch.file("out"))"] + scratch.probe("bg", [.background, .token]))
        eventually(timeout: .seconds(20)) { scratch.read("out").contains("done 2 ") || host.waitForExit(timeout: .zero) != nil }
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(scratch.read("out") == "done 1 0\ndone 2 2\n")
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["delivered", "rejected"])
        #expect(scratch.probeCalls() == ["bg background old-1"])
    }
}
