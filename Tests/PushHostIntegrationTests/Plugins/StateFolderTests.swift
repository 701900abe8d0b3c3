import Foundation
import Testing

/// `ph.state/1`: each plugin's own folder in the state directory,
/// `STATE/plugins/NAME`, made 0700 on first use; a symbolic link in its
/// place is refused with a line that names it.
@Suite struct StateFolderTests {
    /// `keeper` (Tests/Fixtures/plugins/keeper.c) asks for its folder in
    /// create() and logs what it got; in a worker (`--isolate all`) too.
    @Test(arguments: [false, true]) func eachPluginGetsAFolderOfItsOwn(isolated: Bool) throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("keeper.so", PluginSource.fixture("keeper"))
        let result = try scratch.run(["--plugin", plugin] + (isolated ? ["--isolate", "all"] : []), stdin: "")
        #expect(result.status == 0, "\(result.stderr)")
        let folder = scratch.file("state/plugins/keeper")
        #expect(result.stderr.contains("info keeper: folder \(folder), same pointer 1"))
        for path in [scratch.file("state/plugins"), folder] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
    }

    @Test func aSymbolicLinkInItsPlaceIsRefused() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("keeper.so", PluginSource.fixture("keeper"))
        try FileManager.default.createDirectory(atPath: scratch.file("state/plugins"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("state/plugins/keeper"), withDestinationPath: scratch.file("elsewhere"))
        let result = try scratch.run(["--plugin", plugin], stdin: "")
        #expect(result.stderr.contains(
            "error keeper: no state folder: \(scratch.file("state/plugins/keeper")) is a symbolic link, which pushhost does not follow"))
        #expect(result.stderr.contains("info keeper: folder (none), same pointer 1"))
    }
}
