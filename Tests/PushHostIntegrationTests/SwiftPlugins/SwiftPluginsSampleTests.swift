import Foundation
import Testing

/// The sample Swift plugins of this repository, `inbox` and `orders`, built
/// by `swift build` beside the C samples.
@Suite struct SwiftPluginsSampleTests {
    @Test func swiftAndCSamplesLoadSideBySide() throws {
        let scratch = try Scratch()
        let samples = ["inbox", "orders", "notify"]
        let listing = try Command.pushhost(["plugins", "--json"] + samples.flatMap { ["--plugin", Paths.sample($0)] })
        #expect(listing.status == 0, "\(listing.stderr)")
        let entries = try listing.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(entries.map { $0["name"] as? String } == samples)
        #expect(entries.map { $0["file"] as? String } == samples.map(Paths.sample))
        #expect(entries.map { $0["roles"] as? [String] } == [["data"], ["screen", "action"], ["background", "action"]])
        #expect(entries.map { $0["targets"] as? [String] } == [[], ["orders"], []])

        let plugins = loading(Paths.sample("inbox"), as: "inbox", ["path": scratch.file("inbox.txt"), "delay_ms": "20"])
            + loading(Paths.sample("orders"), as: "orders")
            + loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")])
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("m1", notification: ["title": "Hello", "body": "from the background"]),
            #"{"pushhost":"foreground","screen":"orders"}"#,
            gcm("m2", target: "orders", notification: ["title": "Order 42"]),
            gcm("m3", target: "issues"),
            gcm("m4", target: "orders", data: ["silent": "true"])))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { ($0["id"] ?? $0["event"]) as? String } == ["m1", "foreground", "m2", "m3", "m4"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "applied", "delivered", "delivered", "suppressed"])
        #expect(report.map { $0["route"] as? String } == ["background", nil, "target", "mismatch", "none"])
        #expect(report.map { $0["ui"] as? [String] } == [["notify"], nil, ["orders"], ["orders"], []])
        #expect(scratch.read("notify.txt") == "notify: Hello: from the background\n")
        #expect(result.stderr.contains("info orders: orders target m2 Order 42"), "\(result.stderr)")
        #expect(result.stderr.contains("info orders: orders mismatch m3 issues"), "\(result.stderr)")
        #expect(Set(scratch.read("inbox.txt").split(separator: "\n")) == ["m1\t-\tHello", "m2\torders\tOrder 42", "m3\tissues\t-", "m4\torders\t-"])
    }

    /// inbox files every message after its await; `silent: "true"` is
    /// suppressed, any other message continues.
    @Test func inboxSuppressesSilentMessagesAndFilesEveryOne() throws {
        let scratch = try Scratch()
        let plugins = loading(Paths.sample("inbox"), as: "inbox", ["path": scratch.file("inbox.txt"), "delay_ms": "200"])
            + (try scratch.probe("bg", [.background]))
        let start = ContinuousClock.now
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("m1", data: ["silent": "true"]),
            gcm("m2", data: ["silent": "false"]),
            gcm("m3", target: "news", notification: ["title": "Morning"]),
            gcm("m4", data: ["silent": "true", "title": "Quiet"])))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(200))
        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4"])
        #expect(report.map { $0["status"] as? String } == ["suppressed", "delivered", "delivered", "suppressed"])
        #expect(report.map { ($0["data"] as? [[String: String]])?.first?["verdict"] } == ["suppress", "continue", "continue", "suppress"])
        #expect(scratch.probeCalls() == ["bg background m2", "bg background m3"])
        #expect(Set(scratch.read("inbox.txt").split(separator: "\n")) == ["m1\t-\t-", "m2\t-\t-", "m3\tnews\tMorning", "m4\t-\tQuiet"])
    }
}
