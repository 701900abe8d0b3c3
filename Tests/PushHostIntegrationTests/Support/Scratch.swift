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
    /// against `include` (include/pushhost.h by default), as a third-party
    /// author would; `#include "FILE"` finds the files of
    /// `Paths.fixturePlugins` (such as roles.h).
    ///
    /// Each distinct build is compiled once per test process (see
    /// `PluginBuilds`); `name` is a symbolic link to that library, so the
    /// host still finds `NAME.json` beside the path it is given.
    @discardableResult
    func plugin(_ name: String, _ source: String, compiler: String = "cc", include: String = Paths.include.path) throws -> String {
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fvisibility=hidden", "-shared", "-fPIC",
                         "-I", include, "-iquote", Paths.fixturePlugins.path]
        let library = try PluginBuilds.shared.library(compiler: compiler, arguments: arguments, source: source)
        let output = file(name)
        try FileManager.default.createDirectory(
            atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: output)
        try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: library)
        return output
    }
}

struct CompileError: Error, CustomStringConvertible {
    let output: String
    var description: String { "cc failed:\n\(output)" }
}

/// The C plugins built so far in this test process, one library per distinct
/// compiler, argument list and source, so that a source many tests share (the
/// probe) is compiled once, not once per test.
///
/// The libraries live in one folder made on first use and removed at exit.
/// Tests run in parallel: the first caller of a build compiles it while later
/// callers of the same build wait for it; other builds go on meanwhile.
final class PluginBuilds: @unchecked Sendable {
    static let shared = PluginBuilds()

    /// One build: done once, its library or its compile error kept.
    private final class Build {
        let lock = NSLock()
        var outcome: Result<String, CompileError>?
    }

    private let lock = NSLock()
    private var builds: [UInt64: Build] = [:]

    /// The folder holding the libraries, made once per process (nil when
    /// mkdtemp failed) and removed when the process exits.
    private static let folder: String? = {
        var template = Array((NSTemporaryDirectory() + "/pushhost-plugins-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        atexit { if let folder = PluginBuilds.folder { try? FileManager.default.removeItem(atPath: folder) } }
        return String(cString: made)
    }()

    /// The path of the library that `compiler arguments SOURCE -o LIBRARY`
    /// makes, compiled now if no caller asked for it before; throws
    /// `CompileError` with cc's standard error to every caller when it fails.
    func library(compiler: String, arguments: [String], source: String) throws -> String {
        let key = Self.fnv1a64([compiler] + arguments + [source])
        lock.lock()
        let build = builds[key] ?? Build()
        builds[key] = build
        lock.unlock()

        build.lock.lock()
        defer { build.lock.unlock() }
        if let outcome = build.outcome { return try outcome.get() }
        // Not compiled yet, or a try that failed before cc could answer: compile.
        guard let folder = Self.folder else { throw CocoaError(.fileWriteUnknown) }
        let stem = folder + "/" + String(key, radix: 16)
        try source.write(toFile: stem + ".c", atomically: false, encoding: .utf8)
        let result = try Command.run(compiler, arguments + [stem + ".c", "-o", stem + ".so"])
        let outcome: Result<String, CompileError> =
            result.status == 0 ? .success(stem + ".so") : .failure(CompileError(output: result.stderr))
        build.outcome = outcome
        return try outcome.get()
    }

    /// FNV-1a, 64 bits, over the UTF-8 bytes of `parts`, each ended by a NUL
    /// so that no two lists of parts run together into the same bytes.
    static func fnv1a64(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 + [0] {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        return hash
    }
}
