import Foundation
import Testing

/// A settings file beside a plugin that is there but cannot be read as one
/// refuses the plugin with the reason; its settings are never silently lost.
@Suite struct SidecarTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let label: String
        /// Puts something at `path` where `rec.json` belongs.
        let plant: @Sendable (_ path: String) throws -> Void
        let reason: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "a directory", plant: { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) },
             reason: "a directory"),
        Case(label: "a FIFO", plant: { guard mkfifo($0, 0o600) == 0 else { throw POSIXError(.EEXIST) } }, reason: "a FIFO"),
        Case(label: "a link to nothing", plant: { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: $0 + ".gone") },
             reason: "a symbolic link to a file that does not exist"),
        Case(label: "a link to itself", plant: { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: $0) },
             reason: "Too many levels of symbolic links"),
    ]

    /// The host must end on its own: a FIFO opened for reading would wait for a writer forever.
    @Test(arguments: cases)
    func refusesThePluginWithoutHanging(_ sidecar: Case) throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("rec.so", PluginSource.recorder("rec"))
        try sidecar.plant(scratch.file("rec.json"))
        let host = try HostProcess(["run", "--plugin", file, "--state", scratch.file("state")], errorPath: scratch.file("stderr.log"))
        // Required: the listing below has no time limit, and would wait as long as a hanging host.
        try #require(host.waitForExit() == .status(1), "\(host.stderr)")
        let refusals = host.stderr.split(separator: "\n").filter { $0.contains("refused plugin") }
        #expect(refusals == ["error pushhost: refused plugin \(file): settings file \(scratch.file("rec.json")): \(sidecar.reason)"], "\(host.stderr)")
        let listing = try Command.pushhost(["plugins", "--plugin", file])
        #expect(listing.stdout == "refused \(file): settings file \(scratch.file("rec.json")): \(sidecar.reason)\n")
    }

    /// A link to a real settings file is followed, as for any program.
    @Test func aLinkToASettingsFileIsFollowed() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("rec.so", PluginSource.recorder("rec", keys: ["colour"]))
        let settings = try scratch.write("shared/settings.json", #"{"colour": "green", "log": "\#(scratch.file("rec.log"))"}"#)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("rec.json"), withDestinationPath: settings)
        let result = try Command.pushhost(["run", "--plugin", file, "--state", scratch.file("state")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("rec.log") == "create\ncolour=green\ndestroy\n")
    }
}
