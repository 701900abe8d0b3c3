import Foundation
import Testing

@testable import PushHostCore
@testable import PushHostIsolation
@testable import PushHostPlugins
@testable import PushHostSystem

/// What a plugin links from its folder, read from its ELF file: names and
/// run paths from real libraries built here, and nothing (no crash, no
/// read past the end) from a file that only pretends to be one.
@Suite struct LinkedObjectsTests {
    static func folder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/pushhost-linked-XXXXXX").utf8CString)
        let made = try #require(mkdtemp(&template))
        return String(cString: made)
    }

    static func compile(_ source: String, _ output: String, _ flags: [String] = []) throws {
        let file = output + ".c"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-shared", "-fPIC", file, "-o", output] + flags
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0)
    }

    @Test func aLibraryLinksWhatItNamesFromItsFolderOnly() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/lib", withIntermediateDirectories: true)
        try Self.compile("int deep(void) { return 2; }", folder + "/lib/libdeep.so")
        try Self.compile("int deep(void); int helper(void) { return deep(); }", folder + "/libhelper.so",
                         ["-L\(folder)/lib", "-Wl,--no-as-needed", "-ldeep", "-Wl,-rpath,$ORIGIN/lib"])
        try Self.compile("int other(void) { return 3; }", folder + "/libother.so")
        try Self.compile("int helper(void); int plugin(void) { return helper(); }", folder + "/plugin.so",
                         ["-L\(folder)", "-Wl,--no-as-needed", "-lhelper", "-Wl,-rpath,$ORIGIN"])
        let links = try #require(LinkedObjects.read(folder + "/plugin.so"))
        #expect(links.needed.contains("libhelper.so") && links.needed.contains("libc.so.6"), "\(links.needed)")
        #expect(links.runPaths == ["$ORIGIN"])
        let objects = LinkedObjects.of(folder + "/plugin.so")
        let real = PluginCatalog.realPath(folder)!
        #expect(Set(objects) == [folder + "/plugin.so", real + "/libhelper.so", real + "/lib/libdeep.so"], "\(objects)")
    }

    /// A run path that leads out of the plugin's folder grants nothing there.
    @Test func aRunPathOutOfItsFolderIsNotFollowed() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        try Self.compile("int secret(void) { return 1; }", folder + "/libsecret.so")
        try Self.compile("int secret(void); int plugin(void) { return secret(); }", folder + "/plugins/plugin.so",
                         ["-L\(folder)", "-Wl,--no-as-needed", "-lsecret", "-Wl,-rpath,$ORIGIN/.."])
        #expect(LinkedObjects.of(folder + "/plugins/plugin.so") == [folder + "/plugins/plugin.so"])
    }

    @Test(arguments: [
        [UInt8](),
        [0x7f, 0x45, 0x4c, 0x46],
        [0x7f, 0x45, 0x4c, 0x46, 1, 1] + [UInt8](repeating: 0, count: 58),
        // A header whose program headers lie far past the end, and one whose count is huge.
        [0x7f, 0x45, 0x4c, 0x46, 2, 1] + [UInt8](repeating: 0, count: 26) + [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]
            + [UInt8](repeating: 0, count: 14) + [56, 0, 0xff, 0xff] + [UInt8](repeating: 0, count: 6),
    ])
    func aFileThatIsNoGoodELFLinksNothing(_ bytes: [UInt8]) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/forged.so"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(LinkedObjects.read(file)?.needed.isEmpty ?? true)
        #expect(LinkedObjects.of(file) == [file])
    }
}
