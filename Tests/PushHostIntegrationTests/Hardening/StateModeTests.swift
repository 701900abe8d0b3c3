import Foundation
import Testing

/// The token is a secret: the state directory and the token file are
/// private, a looser directory is pointed out, a planted link is refused.
@Suite struct StateModeTests {
    static let tokenEvent = #"{"pushhost":"token","token":"T-secret"}"# + "\n"

    @Test func theStateDirectoryAndTheTokenArePrivate() throws {
        let scratch = try Scratch()
        let state = scratch.file("deep/state")
        let result = try Command.pushhost(["run", "--state", state], stdin: Self.tokenEvent)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ReportFileTests.mode(state) == 0o700)
        #expect(ReportFileTests.mode(state + "/token") == 0o600)
        #expect(scratch.read("deep/state/token") == "T-secret\n")
        #expect(result.linesBesideNoPluginWarning == [], "\(result.stderr)")
    }

    @Test func aLooserStateDirectoryIsWarnedAboutAndLeftAsItIs() throws {
        let scratch = try Scratch()
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let result = try Command.pushhost(["run", "--state", state], stdin: Self.tokenEvent)
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning pushhost: state directory \(state) has mode 0755") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(ReportFileTests.mode(state) == 0o755)
        #expect(ReportFileTests.mode(state + "/token") == 0o600)
    }

    @Test func aSymbolicLinkForTheTokenIsRefused() throws {
        let scratch = try Scratch()
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let elsewhere = try scratch.write("elsewhere.txt", "not a token\n")
        try FileManager.default.createSymbolicLink(atPath: state + "/token", withDestinationPath: elsewhere)
        let reason = "token file \(state)/token: a symbolic link, which pushhost does not follow"
        let run = try Command.pushhost(["run", "--state", state], stdin: Self.tokenEvent)
        #expect(run.status == 1)
        #expect(run.stderr == "error pushhost: \(reason)\n")
        let token = try Command.pushhost(["token", "--state", state])
        #expect(token.status == 1)
        #expect(token.stdout == "")
        #expect(token.stderr.contains(reason), "\(token.stderr)")
        #expect(scratch.read("elsewhere.txt") == "not a token\n")
    }

    /// Only a link is a setup error: another odd thing in the token's place
    /// is said once, and the run goes on without a stored token.
    @Test func aDirectoryForTheTokenIsWarnedAbout() throws {
        let scratch = try Scratch()
        let state = scratch.file("state")
        try FileManager.default.createDirectory(atPath: state + "/token", withIntermediateDirectories: true)
        #expect(chmod(state, 0o700) == 0)
        let result = try Command.pushhost(["run", "--state", state], stdin: #"{"data":{}}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.linesBesideNoPluginWarning == ["warning pushhost: token file \(state)/token: a directory; starting without a stored token"])
    }
}
