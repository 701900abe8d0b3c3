import Foundation
import Testing

/// The plugins of the external package in pipe-fed runs, side by side with
/// the C probe: async data handlers that complete late or throw, a screen,
/// a token handler.
@Suite struct SwiftPluginsDispatchTests {
    /// The Swift data handler completes each message after its own delay,
    /// out of input order; the UI stage still runs in input order.
    @Test func swiftAsyncDataHandlerBesideCPlugins() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = try scratch.probe("d", [.data])
            + loading(package.library("slow"), as: "slow", ["log": scratch.file("slow.log")])
            + scratch.probe("bg", [.background])
        let delays = [("m1", 300), ("m2", 50), ("m3", 0), ("m4", 20)]
        let ids = delays.map(\.0)
        let start = ContinuousClock.now
        let result = try scratch.run(plugins, stdin: ndjson(delays.map { gcm($0.0, data: ["delay_ms": "\($0.1)"]) }.joined(separator: "\n")))
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(300))

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ids)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" && $0["route"] as? String == "background" })
        #expect(report.map { $0["ui"] as? [String] } == ids.map { _ in ["bg"] })
        for line in report {
            let data = (line["data"] as? [[String: String]]) ?? []
            #expect(data == [["plugin": "d", "verdict": "continue"], ["plugin": "slow", "verdict": "continue"]], "\(line)")
        }

        // Every handler ran to its end; the slowest, m1, came back last.
        let done = scratch.lines("slow.log")
        #expect(Set(done) == Set(ids.map { ["done", $0] }))
        #expect(done.last == ["done", "m1"], "\(done)")
        // The C plugins saw every data stage at once, and the UI stage in input order.
        #expect(scratch.probeCalls() == ids.map { "d data \($0)" } + ids.map { "bg background \($0)" })
    }

    /// A data handler that throws fails its message, with the error's
    /// description logged; the host goes on with the next messages.
    @Test func swiftDataHandlerThatThrows() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("slow"), as: "slow", ["log": scratch.file("slow.log")])
            + (try scratch.probe("bg", [.background]))
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("m1"), gcm("m2", data: ["fail": "yes", "delay_ms": "100"]), gcm("m3"), gcm("m4", data: ["fail": "yes"]), gcm("m5")))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4", "m5"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed", "delivered", "failed", "delivered"])
        #expect(report.map { ($0["data"] as? [[String: String]])?.first?["verdict"] } == ["continue", "failed", "continue", "failed", "continue"])
        #expect(report.map { ($0["ui"] as? [String]) ?? [] } == [["bg"], [], ["bg"], [], ["bg"]])
        #expect((report[1]["error"] as? String)?.contains("slow") == true, "\(report[1])")

        #expect(result.stderr.contains("error slow: message m2 failed: boom for m2"), "\(result.stderr)")
        #expect(result.stderr.contains("error slow: message m4 failed: boom for m4"), "\(result.stderr)")
        #expect(Set(scratch.lines("slow.log")) == [["done", "m1"], ["throw", "m2"], ["done", "m3"], ["throw", "m4"], ["done", "m5"]])
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m3", "bg background m5"])
    }

    /// The Swift screen gets `onTarget` for its target and `onMismatch` for
    /// any other while it is the top screen, with the message's fields.
    @Test func swiftScreenGetsTargetAndMismatchCalls() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let plugins = loading(package.library("shelf"), as: "shelf", ["log": scratch.file("shelf.log")])
            + (try scratch.probe("bg", [.background]))
        let result = try scratch.run(plugins, stdin: ndjson(
            gcm("m1", target: "shelf", notification: ["title": "Before"]),
            #"{"pushhost":"foreground","screen":"shelf"}"#,
            gcm("m2", target: "shelf", notification: ["title": "Tea is back", "body": "Earl Grey, 3 boxes"]),
            gcm("m3", target: "pantry", data: ["title": "From data", "body": "data body"]),
            gcm("m4"),
            #"{"pushhost":"background"}"#,
            gcm("m5", target: "shelf")))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.map { ($0["id"] ?? $0["event"]) as? String } == ["m1", "foreground", "m2", "m3", "m4", "background", "m5"])
        #expect(report.map { $0["route"] as? String } == ["background", nil, "target", "mismatch", "mismatch", nil, "background"])
        #expect(report.map { $0["ui"] as? [String] } == [["bg"], nil, ["shelf"], ["shelf"], ["shelf"], nil, ["bg"]])
        #expect(scratch.lines("shelf.log") == [
            ["target", "m2", "shelf", "Tea is back", "Earl Grey, 3 boxes"],
            ["mismatch", "m3", "pantry", "From data", "data body"],
            ["mismatch", "m4", "-", "-", "-"],
        ])
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m5"])
    }

    /// A Swift UI handler that throws fails its message (ABI 1.2's `fail`):
    /// status `failed`, the error after the plugin's name, and the host goes
    /// on with the next message.
    @Test func swiftScreenThatThrowsFailsItsMessage() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let result = try scratch.run(
            loading(package.library("shelf"), as: "shelf", ["log": scratch.file("shelf.log")]),
            stdin: ndjson(
                #"{"pushhost":"foreground","screen":"shelf"}"#,
                gcm("m1", target: "shelf", data: ["jam": "yes"]),
                gcm("m2", target: "shelf", notification: ["title": "Next"])))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["applied", "failed", "delivered"])
        #expect(report[1]["error"] as? String == "shelf: the shelf jammed on m1", "\(report[1])")
        #expect(report[1]["route"] as? String == "target")
        #expect(scratch.lines("shelf.log") == [["target", "m2", "shelf", "Next", "-"]])
    }

    /// The Swift token handler gets the new token and the one before (nil
    /// at first), after the host stored it; the same token again calls nobody.
    @Test func swiftTokenHandlerGetsNewAndPreviousTokens() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let token = { (text: String) in #"{"pushhost":"token","token":"\#(text)"}"# }
        let result = try scratch.run(
            loading(package.library("tokens"), as: "tokens", ["log": scratch.file("tokens.log")]),
            stdin: ndjson(token("T1"), token("T1"), token("T2"), token("T2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["stored", "unchanged", "stored", "unchanged"])
        // token, new, previous, the context's currentToken during the call.
        #expect(scratch.lines("tokens.log") == [["token", "T1", "-", "T1"], ["token", "T2", "T1", "T2"]])
    }
}
