import Foundation
import Testing

/// `host->fail` (ABI 1.2): a UI handler that could not do its part makes
/// its message `failed`, with its reason after the plugin's name, in the
/// host and in a worker alike; a plugin checks the table's size first.
@Suite struct FailTests {
    /// A background plugin that fails each message whose `data.fail` is
    /// set, with that text as the reason, when the host's table has `fail`.
    static let failing = PluginSource.descriptor(
        #".name = "shower", .create = create, .on_background = on_background"#,
        prelude: """
            static const ph_host *host;
            static void *create(const ph_host *h, const ph_config *c) {
                (void)c;
                host = h;
                return PH_HAS_FIELD(ph_host, h, fail) ? (void *)1 : NULL;
            }
            static void on_background(void *self, const ph_message *m) {
                (void)self;
                const char *reason = host->message_get(m, "data.fail");
                if (reason) host->fail(host, m, reason);
            }
            """)

    static let input = ndjson(
        #"{"message_id":"m1","data":{}}"#,
        #"{"message_id":"m2","data":{"fail":"the desktop did not show it"}}"#,
        #"{"message_id":"m3","data":{}}"#)

    @Test(arguments: [false, true])
    func aFailedUICallFailsItsMessage(isolated: Bool) throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("shower.so", Self.failing)
        let run = try scratch.run(["--plugin", file] + (isolated ? ["--isolate", "shower"] : []), stdin: Self.input)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed", "delivered"])
        #expect(report[1]["route"] as? String == "background")
        #expect(report[1]["error"] as? String == "shower: the desktop did not show it", "\(report[1])")
    }
}
