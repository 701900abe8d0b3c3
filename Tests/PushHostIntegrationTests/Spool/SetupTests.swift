import Foundation
import Testing

/// `--watch DIR` creates the maildir layout, or fails with a clear setup error.
@Suite struct SetupTests {
    /// The four folders, and the crash journal beside them (mode 0600).
    @Test func watchCreatesTheFourFoldersAndTheJournal() throws {
        let scratch = try Scratch()
        let host = try scratch.startWatching([])
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.spool.names("").sorted() == ["cur", "failed", "journal", "new", "tmp"])
        let journal = try FileManager.default.attributesOfItem(atPath: scratch.spool.folder("journal"))
        #expect((journal[.posixPermissions] as? Int) == 0o600)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// The --watch path, inside the scratch folder, where `file` is a regular file.
        let watch: String
        let says: String
    }

    @Test(arguments: [
        Case(testDescription: "a path under a regular file", watch: "file/spool", says: "cannot create"),
        Case(testDescription: "a regular file", watch: "file", says: "not a directory"),
    ])
    func watchOnAPathThatCannotBeADirectoryExits1(_ setup: Case) throws {
        let scratch = try Scratch()
        try scratch.write("file", "not a folder\n")
        let watch = scratch.file(setup.watch)
        let result = try Command.pushhost(["run", "--state", scratch.file("state"), "--watch", watch], stdin: "")
        #expect(result.status == 1, "\(result.stderr)")
        let error = try #require(result.errorLines.first { $0.hasPrefix("error pushhost:") }, "\(result.stderr)")
        #expect(error.contains(watch) && error.contains(setup.says), "\(error)")
        #expect(!result.stderr.contains("watching"))
        #expect(scratch.read("file") == "not a folder\n")
    }
}
