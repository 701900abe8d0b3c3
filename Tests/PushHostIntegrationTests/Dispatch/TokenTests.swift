import Foundation
import Testing

/// The registration token: stored in the state directory first, then told to
/// every token plugin; the same token again calls nobody.
@Suite struct TokenTests {
    static func token(_ text: String) -> String {
        #"{"pushhost":"token","token":"\#(text)"}"#
    }

    static func plugins(_ scratch: Scratch) throws -> [String] {
        try scratch.probe("t2", [.token]) + scratch.probe("bg", [.background]) + scratch.probe("t1", [.token, .data])
    }

    @Test func firstSameAndNewToken() throws {
        let scratch = try Scratch()
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(Self.token("T1"), Self.token("T1"), Self.token("T2")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["t2 token T1 -", "t1 token T1 -", "t2 token T2 T1", "t1 token T2 T1"])
        let report = try result.report()
        #expect(report.map { $0["event"] as? String } == ["token", "token", "token"])
        #expect(report.map { $0["status"] as? String } == ["stored", "unchanged", "stored"])
        #expect(report.map { ($0["source"] as? [String: Any])?["line"] as? Int } == [1, 2, 3])
        #expect(scratch.read("state/token") == "T2\n")
    }

    @Test func tokenPersistsAcrossRuns() throws {
        let scratch = try Scratch()
        let plugins = try Self.plugins(scratch)
        let first = try scratch.run(plugins, stdin: ndjson(Self.token("T1")))
        #expect(first.status == 0, "\(first.stderr)")
        let second = try scratch.run(plugins, stdin: ndjson(Self.token("T1"), Self.token("T2")))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(scratch.probeCalls() == ["t2 token T1 -", "t1 token T1 -", "t2 token T2 T1", "t1 token T2 T1"])
        #expect(try second.report().map { $0["status"] as? String } == ["unchanged", "stored"])
        let printed = try Command.pushhost(["token", "--state", scratch.file("state")])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == "T2\n")
    }

    @Test func tokenCommandWithoutAStoredToken() throws {
        let scratch = try Scratch()
        let empty = scratch.file("empty")
        let result = try Command.pushhost(["token", "--state", empty])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no token stored in \(empty) yet"), "\(result.stderr)")
    }

    @Test func stateDirectoryUnderARegularFileIsASetupError() throws {
        let scratch = try Scratch()
        try scratch.write("file", "not a directory\n")
        let state = scratch.file("file/state")
        let result = try Command.pushhost(
            ["run", "--state", state, "--report", "-"] + Self.plugins(scratch),
            stdin: ndjson(Self.token("T1"), #"{"data":{}}"#))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("state directory \(state)"), "\(result.stderr)")
        #expect(result.stderr.contains("Not a directory"), "\(result.stderr)")
        #expect(scratch.probeCalls().isEmpty)
    }

    /// A token the host cannot store is not passed on: the plugins would
    /// otherwise hear of a token that is lost at the next start.
    @Test func tokenThatCannotBeStoredFailsAndNobodyIsTold() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("state/token"), withIntermediateDirectories: true)
        let result = try scratch.run(try Self.plugins(scratch), stdin: ndjson(Self.token("T1"), #"{"message_id":"m1","data":{}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.probeCalls() == ["t1 data m1", "bg background m1"])
        let report = try result.report()
        try #require(report.count == 2)
        #expect(report[0]["status"] as? String == "failed")
        #expect((report[0]["error"] as? String)?.contains("token") == true, "\(report[0])")
        #expect(result.stderr.contains("line 1: the token could not be stored"), "\(result.stderr)")
        let strict = try scratch.run(try Self.plugins(scratch) + ["--strict"], stdin: ndjson(Self.token("T1")))
        #expect(strict.status == 3)
    }

    @Test func xdgStateHomeIsUsedWithoutState() throws {
        let scratch = try Scratch()
        let environment = ["XDG_STATE_HOME": scratch.file("xdg"), "HOME": scratch.file("home")]
        let result = try Command.pushhost(["run", "--report", "-"] + Self.plugins(scratch), stdin: ndjson(Self.token("T1")), environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("xdg/pushhost/token") == "T1\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("home")))
        let printed = try Command.pushhost(["token"], environment: environment)
        #expect(printed.stdout == "T1\n", "\(printed.stderr)")
    }

    @Test func homeIsUsedWithoutStateOrXDGStateHome() throws {
        let scratch = try Scratch()
        let environment = ["XDG_STATE_HOME": "", "HOME": scratch.file("home")]
        let result = try Command.pushhost(["run", "--report", "-"] + Self.plugins(scratch), stdin: ndjson(Self.token("T1")), environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("home/.local/state/pushhost/token") == "T1\n")
        let printed = try Command.pushhost(["token"], environment: environment)
        #expect(printed.stdout == "T1\n", "\(printed.stderr)")
    }
}
