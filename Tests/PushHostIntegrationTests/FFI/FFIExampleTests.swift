import Foundation
import Testing

/// The README's worked example (`examples/ffi`) does what the README says:
/// the library built with one `cc` line beside its manifest, found by
/// `--plugins DIR`, suppresses a promotion, shows alerts through the log
/// callback, and fails the message whose level is not an integer.
@Suite struct FFIExampleTests {
    static let example = Paths.packageRoot.appendingPathComponent("examples/ffi")

    static func folder() throws -> Scratch {
        let scratch = try Scratch()
        let compiled = try Command.run("cc", [
            "-shared", "-fPIC", "-o", scratch.file("liblegacy-alert.so"),
            example.appendingPathComponent("legacy_alert.c").path,
        ])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        try FileManager.default.copyItem(
            atPath: example.appendingPathComponent("alerts.ffi.json").path, toPath: scratch.file("alerts.ffi.json"))
        return scratch
    }

    @Test func listsTheSignatures() throws {
        let scratch = try Self.folder()
        let listed = try Command.pushhost(["plugins", "--plugins", scratch.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("alerts 1.0.0 (ffi) \(scratch.path)/alerts.ffi.json\n"), "\(listed.stdout)")
        #expect(listed.stdout.contains("  init: int32_t legacy_init(\"console\", log)\n"), "\(listed.stdout)")
        #expect(listed.stdout.contains("  data: bool legacy_is_promo(const char *data.kind) -> true suppress, false continue, else failed\n"))
        #expect(listed.stdout.contains(
            "  background: int32_t legacy_alert(const char *notification.title, const char *notification.body, int32_t data.level = 1)\n"))
        #expect(listed.stdout.contains("  fini: void legacy_shutdown(void)\n"))
        #expect(!listed.stdout.contains("refused"), "the library beside its manifest is no plugin: \(listed.stdout)")
    }

    @Test func runsTheStory() throws {
        let scratch = try Self.folder()
        let result = try Command.pushhost(
            ["run", "--plugins", scratch.path, "--report", "-", "--state", scratch.file("state")],
            stdin: ndjson(
                #"{"message_id":"m-1","notification":{"title":"Printer jammed","body":"Floor 2"},"data":{"level":"3"}}"#,
                #"{"message_id":"m-2","notification":{"title":"Half price"},"data":{"kind":"promo"}}"#,
                #"{"message_id":"m-3","notification":{"title":"Door open"}}"#,
                #"{"message_id":"m-4","notification":{"title":"Disk"},"data":{"level":"urgent"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("info alerts: console ALERT p3 Printer jammed: Floor 2\n"), "\(result.stderr)")
        #expect(result.stderr.contains("info alerts: console ALERT p1 Door open: \n"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("info alerts: 2 alerts shown\n"), "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "delivered", "failed"])
        #expect(report[3]["error"] as? String == #"alerts: data.level is "urgent", which is not an integer (legacy_alert not called)"#)
    }
}
