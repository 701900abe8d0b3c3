import Foundation
import Testing

/// The Swift runtime an installed pushhost carries is loaded only from
/// files no one but root or the host's user could have written: a copy of
/// the installed binary and its runtime folder, one library of which a
/// group may write, names that library and leaves it out; the rest loads,
/// and a Swift sample runs.
@Suite struct PrivateRuntimeTests {
    @Test("a runtime library a group may write is named and not loaded")
    func aWritableRuntimeLibraryIsRefused() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let copy = scratch.file("usr")
        for folder in ["bin", "lib/pushhost"] {
            try FileManager.default.createDirectory(atPath: copy + "/" + folder, withIntermediateDirectories: true)
        }
        let copied = try Command.run("cp", ["-a", installed.pushhost, copy + "/bin/"])
        let runtime = try Command.run("cp", ["-a", installed.swiftlibdir, copy + "/lib/pushhost/"])
        try #require(copied.status == 0 && runtime.status == 0, "\(copied.stderr) \(runtime.stderr)")
        // One the host does not link itself, so that it would be loaded for the plugins.
        let libraries = try FileManager.default.contentsOfDirectory(atPath: copy + "/lib/pushhost/swift").filter { $0.hasSuffix(".so") }
        let linked = try Command.run("sh", ["-c", "ldd \(copy)/bin/pushhost"]).stdout
        let unlinked = try #require(libraries.sorted().first { !linked.contains("/" + $0) }, "\(libraries)")
        let writable = copy + "/lib/pushhost/swift/" + unlinked
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: writable)
        try scratch.write("inbox.json", #"{"path": "inbox.tsv"}"#)
        try FileManager.default.copyItem(atPath: installed.samplesdir + "/libinbox.so", toPath: scratch.file("inbox.so"))
        let run = try Command.run(
            copy + "/bin/pushhost",
            ["run", "--plugin", scratch.file("inbox.so"), "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")],
            stdin: #"{"message_id":"m-1","data":{"n":"1"}}"# + "\n", directory: scratch.path)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(run.stderr.contains("warning pushhost: private runtime: refused \(writable): writable by group or others (mode 0664)"), "\(run.stderr)")
        #expect(scratch.read("inbox.tsv").hasPrefix("m-1\t"))
    }
}
