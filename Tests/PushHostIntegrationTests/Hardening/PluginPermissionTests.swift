import Foundation
import Testing

/// A plugin file that someone other than its owner could change is not
/// loaded; one in a sticky world-writable directory loads with a warning.
@Suite struct PluginPermissionTests {
    static let source = PluginSource.descriptor(#".name = "quiet", .on_background = on_message"#, prelude: PluginSource.noopHandlers)

    /// A copy of the plugin built from `source` at `name` (not a link to the
    /// shared build, whose mode other tests rely on), in a folder set to `folderMode`.
    /// `path` with its symbolic links resolved, as the host names directories.
    static func real(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    @discardableResult
    static func copy(_ scratch: Scratch, _ name: String, folderMode: Int = 0o755, source: String = source) throws -> String {
        let built = try FileManager.default.destinationOfSymbolicLink(atPath: try scratch.plugin("build/" + (name as NSString).lastPathComponent, source))
        let path = scratch.file(name)
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: built, toPath: path)
        #expect(chmod(folder, mode_t(folderMode)) == 0)
        return path
    }

    @Test(arguments: [0o666, 0o775, 0o757])
    func aFileWritableByGroupOrOthersIsRefused(_ mode: Int) throws {
        let scratch = try Scratch()
        let file = try Self.copy(scratch, "plugins/quiet.so")
        #expect(chmod(file, mode_t(mode)) == 0)
        let reason = "refused plugin \(file): writable by group or others (mode 0\(String(mode, radix: 8)))"
        let run = try scratch.run(["--plugin", file], stdin: #"{"data":{}}"# + "\n")
        #expect(run.status == 1)
        #expect(run.errorLines.filter { $0.contains(reason) }.count == 1, "\(run.stderr)")
        let listing = try Command.pushhost(["plugins", "--plugin", file])
        #expect(listing.status == 1)
        #expect(listing.stdout.hasPrefix("refused \(file): writable by group or others (mode 0\(String(mode, radix: 8)))"), "\(listing.stdout)")
    }

    @Test func aDirectoryWritableByOthersWithoutTheStickyBitIsRefused() throws {
        let scratch = try Scratch()
        let file = try Self.copy(scratch, "open/quiet.so", folderMode: 0o777)
        let reason = "refused plugin \(file): in the directory \(Self.real(scratch.file("open"))), which others can write (mode 0777) without the sticky bit"
        let run = try scratch.run(["--plugins", scratch.file("open")], stdin: #"{"data":{}}"# + "\n")
        #expect(run.status == 1)
        #expect(run.errorLines.filter { $0.contains(reason) }.count == 1, "\(run.stderr)")
        #expect(run.stdout == "")
        let skipped = try scratch.run(["--plugins", scratch.file("open"), "--skip-bad-plugins"], stdin: #"{"data":{}}"# + "\n")
        #expect(skipped.status == 0)
        #expect(skipped.errorLines.filter { $0.contains(reason) }.count == 1, "\(skipped.stderr)")
        #expect(try skipped.report().map { $0["status"] as? String } == ["undelivered"])
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", file])
        #expect(listing.status == 1)
        #expect(listing.stdout.contains("which others can write (mode 0777) without the sticky bit"), "\(listing.stdout)")
    }

    /// A plugin named by a link in a safe folder, whose file lives in an unsafe one.
    @Test func theDirectoryOfTheFileALinkLeadsToIsCheckedToo() throws {
        let scratch = try Scratch()
        let file = try Self.copy(scratch, "open/quiet.so", folderMode: 0o777)
        let link = scratch.file("safe/quiet.so")
        try FileManager.default.createDirectory(atPath: scratch.file("safe"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let run = try scratch.run(["--plugin", link], stdin: "")
        #expect(run.status == 1)
        #expect(run.stderr.contains("refused plugin \(link): in the directory \(Self.real(scratch.file("open"))), which others can write"), "\(run.stderr)")
    }

    @Test func aStickyWorldWritableDirectoryIsWarnedAboutOnce() throws {
        let scratch = try Scratch()
        let other = PluginSource.descriptor(#".name = "other", .on_background = on_message"#, prelude: PluginSource.noopHandlers)
        try Self.copy(scratch, "sticky/other.so", source: other)
        try Self.copy(scratch, "sticky/quiet.so", folderMode: 0o1777)
        let run = try scratch.run(["--plugins", scratch.file("sticky")], stdin: #"{"data":{}}"# + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.errorLines == [
            "warning pushhost: plugin directory \(Self.real(scratch.file("sticky"))) is writable by others (mode 01777); "
                + "its sticky bit keeps others from replacing files, but keep plugins in a directory only their owner can write",
        ])
        #expect(try run.report().first?["ui"] as? [String] == ["other", "quiet"])
    }
}
