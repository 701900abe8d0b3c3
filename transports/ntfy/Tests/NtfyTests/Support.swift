import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the tests find what they run: the `pushhost` binary, the built
/// `libntfy.so`, the test server, python, and a C compiler for `flaky`.
enum Paths {
    /// transports/ntfy.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repository = package.deletingLastPathComponent().deletingLastPathComponent()
    static let server = package.appendingPathComponent("Tests/Fixtures/ntfy_server.py").path
    static let flakySource = package.appendingPathComponent("Tests/Fixtures/flaky.c").path

    /// `PUSHHOST`, else the repository's debug build.
    static func pushhost() throws -> String {
        let path = ProcessInfo.processInfo.environment["PUSHHOST"]
            ?? repository.appendingPathComponent(".build/debug/pushhost").standardizedFileURL.path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Missing(
                "no pushhost binary at \(path): build it in the repository's root with `swift build --product pushhost`, "
                    + "or set PUSHHOST to a pushhost binary built by this toolchain")
        }
        return path
    }

    /// `NTFY_PLUGIN`, else libntfy.so beside the test binary (what `swift
    /// build` made in the same configuration), else .build/debug.
    static func plugin() throws -> String {
        var candidates: [String] = []
        if let given = ProcessInfo.processInfo.environment["NTFY_PLUGIN"] { candidates.append(given) }
        if let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var folder = URL(fileURLWithPath: binary).deletingLastPathComponent()
            // Swift Testing's runner may sit inside the .xctest bundle's folder.
            for _ in 0..<3 {
                candidates.append(folder.appendingPathComponent("libntfy.so").path)
                folder = folder.deletingLastPathComponent()
            }
        }
        candidates.append(package.appendingPathComponent(".build/debug/libntfy.so").path)
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw Missing("no libntfy.so (looked at \(candidates.joined(separator: ", "))): run `swift build` in transports/ntfy before `swift test`")
        }
        return found
    }

    static let python: String = ProcessInfo.processInfo.environment["PYTHON"]
        ?? (FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3")

    /// `flaky` (Tests/Fixtures/flaky.c), built once with `cc` into a private folder.
    static func flaky() throws -> String { try flakyBuilt.get() }

    private static let flakyBuilt = Result<String, any Error> {
        var template = Array("/tmp/pushhost-ntfy-flaky-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Missing("mkdtemp: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        FlakyCleanup.folder = folder
        atexit { FlakyCleanup.remove() }
        let library = folder + "/libflaky.so"
        let result = try Command.run(
            "cc", ["-std=c11", "-Wall", "-shared", "-fPIC", "-I", repository.appendingPathComponent("include").path, flakySource, "-o", library])
        guard result.status == 0 else { throw Missing("cc could not build flaky.c:\n\(result.output)") }
        return library
    }
}

/// The folder of `flaky`, removed at exit.
private enum FlakyCleanup {
    nonisolated(unsafe) static var folder: String?

    static func remove() {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}

struct Missing: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A private folder for one test under /tmp, removed when it goes away.
final class Scratch: @unchecked Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/pushhost-ntfy-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Missing("mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    deinit {
        if ProcessInfo.processInfo.environment["NTFY_KEEP_SCRATCH"] == nil { try? FileManager.default.removeItem(atPath: path) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }
}

/// A finished command's exit status and what it printed.
struct Command {
    let status: Int32
    let output: String

    static func run(_ program: String, _ arguments: [String]) throws -> Command {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Command(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; whether it held.
/// The wait blocks its thread, so that no test's timing depends on the pool.
@discardableResult
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

/// A program running in the background, killed if still running when this goes away.
final class Background: @unchecked Sendable {
    let process = Process()
    let started = ContinuousClock.now

    init(_ program: String, _ arguments: [String], stdout: Any? = nil, stderr: String) throws {
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        defer { try? errors.close() }
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Sends `signal`, then waits up to `timeout` for the exit: its status
    /// (a signal that ended it as 128 + its number), or nil while it still runs.
    func stop(_ signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return exitStatus(within: timeout)
    }

    func exitStatus(within timeout: Duration) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// The peak resident memory so far (VmHWM), in KiB, or nil once it exited.
    var peakMemory: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }
}

/// The test server (Tests/Fixtures/ntfy_server.py) on a loopback port.
final class NtfyServer: @unchecked Sendable {
    let port: Int
    private let process: Background

    /// Starts it on `port` (0: a free one) and waits for its port.
    init(_ scratch: Scratch, port requested: Int = 0, keepalive: Double = 0.5) throws {
        let pipe = Pipe()
        let name = "server-\(requested)-\(UInt32.random(in: 0...UInt32.max)).log"
        process = try Background(
            Paths.python, [Paths.server, "--port", String(requested), "--keepalive", String(keepalive)],
            stdout: pipe, stderr: scratch.file(name))
        var text = ""
        let reader = pipe.fileHandleForReading
        while !text.contains("\n") {
            let data = reader.availableData
            guard !data.isEmpty else { throw Missing("the test server did not start: \(scratch.read(name))") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let port = Int(text.split(separator: "\n").first ?? "") else { throw Missing("the test server said \(text)") }
        self.port = port
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// POST /_`control` with `body`; its answer.
    @discardableResult
    func post(_ control: String, _ body: [String: Any]) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: body)
        let answer = try HTTP.request(port: port, "POST", "/_" + control, body: data)
        return (try JSONSerialization.jsonObject(with: answer) as? [String: Any]) ?? [:]
    }

    /// Publishes a message to `topic`; its id.
    @discardableResult
    func publish(_ topic: String, title: String, id: String? = nil) throws -> String {
        var body: [String: Any] = ["topic": topic, "title": title]
        if let id { body["id"] = id }
        return try post("publish", body)["id"] as? String ?? ""
    }

    /// Every stream request so far: its `since` (nil when absent) and the status it got.
    func requests() throws -> [(since: String?, status: Int)] {
        let answer = try HTTP.request(port: port, "GET", "/_requests", body: nil)
        let list = try JSONSerialization.jsonObject(with: answer) as? [[String: Any]] ?? []
        return list.map { ($0["since"] as? String, $0["status"] as? Int ?? 0) }
    }

    func subscribers(_ topic: String) -> Int {
        guard let answer = try? HTTP.request(port: port, "GET", "/_subscribers?topic=\(topic)", body: nil),
              let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any] else { return -1 }
        return object["count"] as? Int ?? -1
    }

    func stop() { _ = process.stop(SIGKILL) }
}

/// A plain HTTP/1.0 request over a loopback socket, for steering the test server.
enum HTTP {
    static func request(port: Int, _ method: String, _ path: String, body: Data?) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Missing("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Missing("connect to the test server: \(String(cString: strerror(errno)))") }
        var request = Data("\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: \(body?.count ?? 0)\r\n\r\n".utf8)
        if let body { request.append(body) }
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let wrote = send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard wrote > 0 else { throw Missing("send to the test server: \(String(cString: strerror(errno)))") }
                sent += wrote
            }
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = recv(fd, &buffer, buffer.count, 0)
            guard got > 0 else { break }
            answer.append(contentsOf: buffer[..<got])
        }
        guard let end = answer.range(of: Data("\r\n\r\n".utf8)) else { throw Missing("the test server's answer has no head") }
        return Data(answer[end.upperBound...])
    }
}

/// A free loopback TCP port (bound, then let go).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw Missing("bind: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// `pushhost run` with the ntfy plugin (and `flaky`, when asked), its
/// report and state in the scratch folder.
final class Host: @unchecked Sendable {
    let scratch: Scratch
    let process: Background
    let reportName: String
    let errorName: String

    init(
        _ scratch: Scratch, _ settings: [String: String], flaky: Bool = false, report: String = "report.ndjson", stderr: String = "stderr.log",
        state: String = "state"
    ) throws {
        self.scratch = scratch
        reportName = report
        errorName = stderr
        var arguments = ["run", "--plugin", try Paths.plugin(), "--state", scratch.file(state), "--report", scratch.file(report)]
        if flaky { arguments += ["--plugin", try Paths.flaky()] }
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) { arguments += ["--set", "ntfy.\(key)=\(value)"] }
        process = try Background(try Paths.pushhost(), arguments, stderr: scratch.file(stderr))
    }

    var stderr: String { scratch.read(errorName) }

    /// The report's lines, each parsed.
    var report: [[String: Any]] {
        scratch.read(reportName).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The ids of the report's messages, in order (lines without an id left out).
    var ids: [String] { report.compactMap { $0["id"] as? String } }

    /// The report's lines of `id`.
    func lines(of id: String) -> [[String: Any]] { report.filter { $0["id"] as? String == id } }

    /// Waits until the report has `id` with `status`.
    @discardableResult
    func waitFor(_ id: String, status: String = "delivered", timeout: Duration = .seconds(20)) -> Bool {
        eventually(timeout: timeout) { lines(of: id).contains { $0["status"] as? String == status } || !process.isRunning }
    }

    /// Waits until the report has a keepalive line after the last line of
    /// `id`, so that the stream's own lines came after the last message.
    @discardableResult
    func waitForKeepalive(after id: String, timeout: Duration = .seconds(20)) -> Bool {
        eventually(timeout: timeout) {
            let lines = report
            guard let last = lines.lastIndex(where: { $0["id"] as? String == id }) else { return false }
            return lines[(last + 1)...].contains { $0["ntfy_event"] as? String == "keepalive" }
        }
    }

    /// Waits until standard error holds `text` `count` times.
    @discardableResult
    func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(20)) -> Bool {
        eventually(timeout: timeout) { stderr.components(separatedBy: text).count > count || !process.isRunning }
    }

    func stop(_ signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) -> Int32? {
        process.stop(signal, timeout: timeout)
    }
}
