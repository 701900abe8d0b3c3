import Foundation
import Testing

/// What the spool holds is the owner's alone, whatever the umask: files
/// `pushhost send` writes are 0600, the folders the host makes 0700.
@Suite struct PermissionTests {
    /// The permission bits of `path`.
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func sentFilesAndMadeFoldersAreTheOwnersAlone() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let script = #"umask 000; printf '{"data":{}}' | exec "$1" send --to "$2""#
        let sent = try Command.run("/bin/sh", ["-c", script, "sh", Paths.pushhost, spool.path])
        try #require(sent.status == 0, "\(sent.stderr)")
        let name = try #require(spool.names("new").first)
        #expect(try Self.mode(spool.folder("new") + "/" + name) == 0o600)
        for folder in ["", "tmp", "new", "cur", "failed"] {
            #expect(try Self.mode(spool.folder(folder)) == 0o700, "\(folder)")
        }
    }
}
