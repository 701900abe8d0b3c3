import Foundation

/// A temporary folder for one test, removed when the test is done with it.
final class Scratch {
    let url: URL
    var path: String { url.path }

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/pushhost-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: String(cString: made))
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the folder.
    func file(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = file(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// The contents of `name`, or "" when it does not exist.
    func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }

    /// Compiles C `source` into the shared library `name` with one `cc` line
    /// against include/pushhost.h, as a third-party author would.
    @discardableResult
    func plugin(_ name: String, _ source: String, compiler: String = "cc") throws -> String {
        let sourcePath = try write(name + ".c", source)
        let output = file(name)
        let result = try Command.run(
            compiler,
            ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fvisibility=hidden", "-shared", "-fPIC",
             "-I", Paths.include.path, sourcePath, "-o", output])
        guard result.status == 0 else {
            throw CompileError(output: result.stderr)
        }
        return output
    }
}

struct CompileError: Error, CustomStringConvertible {
    let output: String
    var description: String { "cc failed:\n\(output)" }
}
