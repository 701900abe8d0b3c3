import Foundation

/// A folder of one test's own (its plugins, its state, its report), made
/// with mkdtemp and removed when the test lets go of it.
final class TestFolder {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/pushhost-core-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw StageError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Compiles the C `source` into `NAME.so` here (with `flags`), against
    /// the repository's `include/`; returns the library's path. Each test
    /// builds its own copy, so a plugin's globals are that test's alone.
    func plugin(_ name: String, _ source: String, flags: [String] = []) throws -> String {
        let sourcePath = "\(path)/\(name).c"
        let library = "\(path)/\(name).so"
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        compiler.arguments = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-shared", "-fPIC",
                              "-I", Self.include] + flags + [sourcePath, "-o", library]
        let errors = Pipe()
        compiler.standardError = errors
        try compiler.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else { throw StageError("cc \(name).c failed:\n\(String(decoding: output, as: UTF8.self))") }
        return library
    }

    /// The repository's `include/`, found from this file.
    private static let include = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("include").path
}
