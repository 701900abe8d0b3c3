import Foundation

/// The transport plugins (`transports/`), each built once per test process
/// with its documented command, `make -C transports NAME`, and the test
/// programs that talk to their servers, into one folder made on first use
/// and removed at exit.
enum TransportBuild {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: Result<String, CompileError>] = [:]

    private static let folder: String? = {
        var template = Array((NSTemporaryDirectory() + "/pushhost-transports-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        atexit { if let folder = TransportBuild.folder { try? FileManager.default.removeItem(atPath: folder) } }
        return String(cString: made)
    }()

    /// The path of the transport `name`'s library, `file` (as the
    /// Makefile names it), built now unless it was before; throws make's
    /// output when the build fails.
    static func library(_ name: String, file: String) throws -> String {
        try once(name) { folder in
            let transports = Paths.packageRoot.appendingPathComponent("transports").path
            return (["make", "-C", transports, name, "OUT=\(folder)"], folder + "/" + file)
        }
    }

    /// A test's own program, compiled once from the C file `source` (under
    /// `Tests/Fixtures`) with the pkg-config `libraries`; its path.
    static func program(_ source: String, libraries: [String]) throws -> String {
        try once(source) { folder in
            let flags = (try? Command.run("pkg-config", ["--cflags", "--libs"] + libraries))?.stdout
                .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty } ?? []
            let output = folder + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension
            let input = Paths.fixtures.appendingPathComponent(source).path
            return (["cc", "-std=c11", "-O2", "-Wall", "-Werror", input, "-o", output] + flags, output)
        }
    }

    /// Runs the command `build` gives (a program and its arguments) once per
    /// `key`, and returns the path it makes; throws the command's output
    /// when it fails, now and on every later call.
    private static func once(_ key: String, _ build: (_ folder: String) -> (command: [String], output: String)) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let outcome = built[key] { return try outcome.get() }
        let outcome: Result<String, CompileError>
        if let folder {
            let (command, output) = build(folder)
            if let run = try? Command.run(command[0], Array(command.dropFirst())) {
                outcome = run.status == 0 ? .success(output) : .failure(CompileError(output: run.stdout + run.rawStderr))
            } else {
                outcome = .failure(CompileError(output: "\(command[0]) could not run"))
            }
        } else {
            outcome = .failure(CompileError(output: "mkdtemp failed"))
        }
        built[key] = outcome
        return try outcome.get()
    }

    /// Whether tests that need these can run: on CI always (a missing
    /// package must fail there, not skip), elsewhere when pkg-config finds
    /// `libraries`, `/usr/bin/python3` imports `modules`, and `programs` exist.
    static func canRun(libraries: [String] = [], modules: [String] = [], programs: [String] = []) -> Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        guard programs.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) }) else { return false }
        if !libraries.isEmpty, (try? Command.run("pkg-config", ["--exists"] + libraries))?.status != 0 { return false }
        return modules.allSatisfy { (try? Command.run("/usr/bin/python3", ["-c", "import \($0)"]))?.status == 0 }
    }
}
