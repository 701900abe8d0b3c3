import Foundation

/// Runs a program with its standard input fed from a string, and collects
/// its exit status, standard output and standard error.
struct Command {
    let status: Int32
    let stdout: String
    /// Standard error, each log line without its timestamp (see `LogText`).
    let stderr: String
    /// Standard error as the program wrote it.
    let rawStderr: String

    /// Runs `program` (a path, or a name looked up on PATH) with `arguments`.
    static func run(
        _ program: String,
        _ arguments: [String],
        stdin: String = "",
        environment: [String: String]? = nil,
        directory: String? = nil
    ) throws -> Command {
        try run(program, arguments, input: Data(stdin.utf8), environment: environment, directory: directory)
    }

    /// Runs `program` with raw bytes on its standard input (which a String
    /// cannot carry when they are not UTF-8).
    static func run(
        _ program: String,
        _ arguments: [String],
        input: Data,
        environment: [String: String]? = nil,
        directory: String? = nil
    ) throws -> Command {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let feed = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = feed
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes while the process runs, so a full pipe never blocks it.
        let collected = CollectedOutput()
        let group = DispatchGroup()
        for (pipe, keyPath) in [(output, \CollectedOutput.stdout), (errors, \CollectedOutput.stderr)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(keyPath, data)
                group.leave()
            }
        }
        ignoreBrokenPipes
        // A host that stops early (a refused plugin) closes its end: not an error here.
        try? feed.fileHandleForWriting.write(contentsOf: input)
        try? feed.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Command(
            status: process.terminationStatus,
            stdout: String(decoding: collected.stdout, as: UTF8.self),
            stderr: LogText.withoutTimestamps(String(decoding: collected.stderr, as: UTF8.self)),
            rawStderr: String(decoding: collected.stderr, as: UTF8.self))
    }

    /// Runs the built `pushhost` binary.
    static func pushhost(_ arguments: [String], stdin: String = "", environment: [String: String]? = nil) throws -> Command {
        try run(Paths.pushhost, arguments, stdin: stdin, environment: environment)
    }
}

/// Writing to a host that has exited must fail with EPIPE, not kill the tests.
private let ignoreBrokenPipes: Void = {
    signal(SIGPIPE, SIG_IGN)
}()

private final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    var stdout = Data()
    var stderr = Data()

    func set(_ keyPath: ReferenceWritableKeyPath<CollectedOutput, Data>, _ data: Data) {
        lock.lock()
        self[keyPath: keyPath] = data
        lock.unlock()
    }
}
