import Foundation
import Testing

/// The Swift runtime an installed pushhost carries is loaded only from
/// files no one but root or the host's user could have written: in a copy
/// of the installed binary and its runtime folder, a library that a group
/// or others may write is named and left out (its constructor never runs),
/// and the same library loads once only its owner may write it; a Swift
/// sample runs either way.
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
        // A library of the runtime's folder the host does not link, which says when it is loaded.
        let extra = copy + "/lib/pushhost/swift/libswiftExtra.so"
        let marker = scratch.file("loaded")
        let built = try Command.run(
            "cc", ["-shared", "-fPIC", "-x", "c", "-", "-o", extra],
            stdin: "#include <stdio.h>\n__attribute__((constructor)) static void loaded(void) { fclose(fopen(\"\(marker)\", \"w\")); }\n")
        try #require(built.status == 0, "\(built.stderr)")
        try scratch.write("inbox.json", #"{"path": "inbox.tsv"}"#)
        try FileManager.default.copyItem(atPath: installed.samplesdir + "/libinbox.so", toPath: scratch.file("inbox.so"))
        func run() throws -> Command {
            try Command.run(
                copy + "/bin/pushhost",
                ["run", "--plugin", scratch.file("inbox.so"), "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")],
                stdin: #"{"message_id":"m-1","data":{"n":"1"}}"# + "\n", directory: scratch.path)
        }
        for mode in [0o664, 0o646] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: extra)
            let refused = try run()
            #expect(refused.status == 0, "\(refused.stderr.suffix(2000))")
            let octal = "0" + String(mode, radix: 8)
            #expect(refused.stderr.contains("warning pushhost: private runtime: refused \(extra.replacingOccurrences(of: "//", with: "/")): writable by group or others (mode \(octal))"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
        #expect(scratch.read("inbox.tsv").hasPrefix("m-1\t"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: extra)
        let loaded = try run()
        #expect(loaded.status == 0 && !loaded.stderr.contains("private runtime"), "\(loaded.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
