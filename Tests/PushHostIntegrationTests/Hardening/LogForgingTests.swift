import Foundation
import Testing

/// Text from a message or a plugin cannot forge a log line: each log record
/// is exactly one line of standard error, its control characters escaped.
@Suite struct LogForgingTests {
    @Test func anEventNameWithANewlineAndAnEscape() throws {
        let scratch = try Scratch()
        let result = try scratch.run([], stdin: #"{"pushhost":"bogus\nerror pushhost: forged\u001b[2J"}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.linesBesideNoPluginWarning.count == 1, "\(result.stderr)")
        #expect(result.linesBesideNoPluginWarning.first?.hasPrefix("error pushhost: rejected line 1") == true, "\(result.stderr)")
        #expect(result.stderr.contains(#"unknown host event "bogus\nerror pushhost: forged\x1b[2J""#), "\(result.stderr)")
    }

    @Test func aMessageIDWithANewlineAndAC1Control() throws {
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data], settings: ["verdict": "pending-never"]) + ["--data-timeout", "0"]
        let result = try scratch.run(plugins, stdin: #"{"message_id":"m1\nerror pushhost: forged\u0085","data":{}}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.count == 1, "\(result.stderr)")
        #expect(result.errorLines.first?.hasPrefix("warning pushhost: d: no complete for message m1\\nerror pushhost: forged\\u{85} ") == true,
                "\(result.stderr)")
    }

    @Test func aPluginsLogTextWithANewline() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("chatty.so", PluginSource.descriptor(
            #".name = "chatty", .create = create, .on_background = on_message"#,
            prelude: PluginSource.noopHandlers + """
                static int state;
                static void *create(const ph_host *h, const ph_config *c) {
                    (void)c;
                    h->log(h, PH_LOG_WARNING, "first\\nerror pushhost: forged\\r\\x1b[1A");
                    return &state;
                }
                """))
        let result = try scratch.run(["--plugin", file], stdin: "")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines == [#"warning chatty: first\nerror pushhost: forged\r\x1b[1A"#])
    }
}
