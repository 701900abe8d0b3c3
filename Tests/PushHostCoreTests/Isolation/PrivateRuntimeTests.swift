import Foundation
import Testing

@testable import PushHostPlugins
@testable import PushHostSystem

/// Which files of the private runtime may be loaded: a file or folder of
/// root or the host's user that no group and no other user may write,
/// and nothing else (a link, another owner, a writable one), each named why.
@Suite struct PrivateRuntimeRefusalTests {
    @Test func onlyFilesNoOneElseCouldHaveWritten() throws {
        var template = Array((NSTemporaryDirectory() + "/pushhost-runtime-XXXXXX").utf8CString)
        let folder = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/libswiftFake.so"
        try Data([1]).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        #expect(PrivateRuntime.refusal(of: file, kind: S_IFREG) == nil)
        #expect(PrivateRuntime.refusal(of: folder, kind: S_IFDIR) == nil)
        chmod(file, 0o664)
        #expect(PrivateRuntime.refusal(of: file, kind: S_IFREG) == "writable by group or others (mode 0664)")
        chmod(file, 0o646)
        #expect(PrivateRuntime.refusal(of: file, kind: S_IFREG) == "writable by group or others (mode 0646)")
        chmod(file, 0o644)
        symlink(file, folder + "/libswiftLink.so")
        #expect(PrivateRuntime.refusal(of: folder + "/libswiftLink.so", kind: S_IFREG) == "not a regular file")
        if geteuid() == 0 {
            chown(file, 65534, 65534)
            #expect(PrivateRuntime.refusal(of: file, kind: S_IFREG) == "owned by uid 65534, neither root nor the host's user")
        }
    }
}
