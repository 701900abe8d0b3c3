import Foundation
import Testing

/// The built `pushhost` running in the background: standard input empty,
/// standard output discarded, standard error captured to a file. Every wait
/// is bounded, so a host that hangs fails the test instead of stalling it; a
/// host still running when this goes away is killed.
///
/// The waits block their thread rather than suspend: a test that suspends
/// may not be resumed for seconds while other tests hold the few threads of
/// the cooperative pool, and the timing of a signal would then be lost.
final class HostProcess: @unchecked Sendable {
    /// How a background host ended.
    enum Exit: Equatable, CustomStringConvertible {
        case status(Int32)
        case signal(Int32)

        var description: String {
            switch self {
            case .status(let code): "exit status \(code)"
            case .signal(let number): "killed by signal \(number)"
            }
        }
    }

    private let process = Process()
    /// The file standard error goes to.
    let errorPath: String

    /// Starts `pushhost` with `arguments`, standard error into `errorPath`,
    /// standard input from `input` (a `Pipe` or a `FileHandle`, when given) or empty.
    /// `program` is another binary to run so (an installed `pushhost`, or
    /// a wrapper such as `sh` or `setpriv`); `environment` is then its whole
    /// environment unless `inheriting`.
    init(
        _ arguments: [String], program: String = Paths.pushhost, errorPath: String, environment: [String: String]? = nil,
        inheriting: Bool = true, input: Any? = nil
    ) throws {
        self.errorPath = errorPath
        guard FileManager.default.createFile(atPath: errorPath, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errorPath])
        }
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errors.close() }
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment {
            process.environment = inheriting ? ProcessInfo.processInfo.environment.merging(environment) { $1 } : environment
        }
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// What the host wrote on standard error so far, each log line without
    /// its timestamp (see `LogText`).
    var stderr: String {
        LogText.withoutTimestamps((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// Waits until standard error contains `text`; false at the timeout or
    /// when the host exits without writing it.
    func waitForStderr(_ text: String, timeout: Duration = .seconds(20)) -> Bool {
        eventually(timeout: timeout) { self.stderr.contains(text) || !self.process.isRunning }
        return stderr.contains(text)
    }

    /// Sends `signal` to the host while it runs (never to a reaped pid).
    func send(_ signal: Int32) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
    }

    /// Waits for the host to end; nil when it still runs at the timeout.
    func waitForExit(timeout: Duration = .seconds(20)) -> Exit? {
        guard eventually(timeout: timeout, { !self.process.isRunning }) else { return nil }
        process.waitUntilExit()
        let code = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? .signal(code) : .status(code)
    }

    /// Sends SIGTERM and waits for the host to end; nil when it does not.
    func stop(timeout: Duration = .seconds(20)) -> Exit? {
        send(SIGTERM)
        return waitForExit(timeout: timeout)
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout`
/// passes; returns whether it held.
@discardableResult
func eventually(timeout: Duration, every interval: Duration = .milliseconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        let (seconds, attoseconds) = interval.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
}

/// A spool directory as a producer and an observer see it.
struct SpoolFolder {
    let path: String

    func folder(_ name: String) -> String { path + "/" + name }

    /// The names in `tmp`, `new`, `cur` or `failed` (hidden ones included), sorted.
    func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self.folder(folder))) ?? []).sorted()
    }

    /// How many entries `folder` holds, without sorting them.
    func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: self.folder(folder)).count) ?? 0
    }

    /// The payload files in `failed/`, without their `.error.json`.
    var failedFiles: [String] { names("failed").filter { !$0.hasSuffix(".error.json") } }

    /// Creates the four folders, as a producer may before the host ever ran.
    func create() throws {
        for name in ["tmp", "new", "cur", "failed"] {
            try FileManager.default.createDirectory(atPath: folder(name), withIntermediateDirectories: true)
        }
    }

    /// Writes `contents` into `tmp/NAME` and renames it into `new/NAME`, as a producer does.
    func drop(_ name: String, _ contents: String) throws {
        let temporary = folder("tmp") + "/" + name
        try Data(contents.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, folder("new") + "/" + name) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Drops many small files fast, with plain system calls.
    func dropMany(_ names: [String], contents: (String) -> String) throws {
        for name in names {
            let temporary = folder("tmp") + "/" + name
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let bytes = Array(contents(name).utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count, rename(temporary, folder("new") + "/" + name) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
    }

    /// Sets the modification time of `new/NAME`.
    func setModified(_ name: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: folder("new") + "/" + name)
    }

    /// The bytes of `FOLDER/NAME`.
    func contents(_ folder: String, _ name: String) -> Data? {
        FileManager.default.contents(atPath: self.folder(folder) + "/" + name)
    }

    /// `failed/NAME.error.json`, parsed.
    func errorReport(_ name: String) throws -> [String: Any] {
        let data = try #require(contents("failed", name + ".error.json"), "no failed/\(name).error.json")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

extension Scratch {
    /// The spool directory of a test: `spool/` in the scratch folder.
    var spool: SpoolFolder { SpoolFolder(path: file("spool")) }

    /// Starts `pushhost run --watch spool` with its own state folder, the
    /// report into `report` and standard error into `errors`.
    func startHost(
        _ arguments: [String], report: String = "report.ndjson", errors: String = "stderr.log",
        environment: [String: String]? = nil
    ) throws -> HostProcess {
        try HostProcess(
            ["run", "--state", file("state"), "--report", file(report), "--watch", spool.path] + arguments,
            errorPath: file(errors), environment: environment)
    }

    /// Starts the host as `startHost` does and waits until its watch is armed
    /// and its first scan done.
    func startWatching(
        _ arguments: [String], report: String = "report.ndjson", errors: String = "stderr.log",
        environment: [String: String]? = nil
    ) throws -> HostProcess {
        let host = try startHost(arguments, report: report, errors: errors, environment: environment)
        let watching = host.waitForStderr("info pushhost: watching \(spool.path)/new")
        try #require(watching, "the host never said it was watching:\n\(host.stderr)")
        return host
    }

    /// The lines of the report file `name`, each parsed; a line cut short by
    /// a kill is skipped when `lenient`.
    func reportLines(_ name: String = "report.ndjson", lenient: Bool = false) throws -> [[String: Any]] {
        try read(name).split(separator: "\n").compactMap { line in
            if lenient { return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] }
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not an object: \(line)")
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The `file` of a report line's spool `source`.
    var sourceFile: String? { (self["source"] as? [String: Any])?["file"] as? String }
}
