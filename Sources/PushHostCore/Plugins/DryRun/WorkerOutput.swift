#if canImport(Glibc)
import Glibc
#endif
import Logging

/// What a worker writes on its standard output and error in a dry run
/// (``DryRun``): both go into a pipe, which a thread of the host's reads
/// until the worker is gone.
///
/// The dry run asks its workers for JSON log lines (`--log-format json`):
/// each is logged again by the host, in the host's format, and kept in
/// `log`. Any other line (a plugin's `printf`, a runtime's last words) goes
/// to standard error as it came, and is kept as it is.
final class WorkerOutput: @unchecked Sendable {
    /// The end the worker writes; closed here once the worker has it (``handed()``).
    let writeEnd: Int32
    private let readEnd: Int32
    private let log: CapturedLog
    /// Signalled once the pipe reached its end.
    private let ended = PipeSemaphore()

    /// A pipe whose lines go to `log`; both ends close on exec (the worker gets its end by `dup2`).
    init(log: CapturedLog) throws(SetupError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw SetupError("cannot make a pipe for a worker's output: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        writeEnd = ends[1]
        self.log = log
    }

    /// Closes the host's copy of the worker's end, and starts reading.
    func handed() {
        close(writeEnd)
        DetachedThread.startOrFail { [self] in read() }
    }

    /// Waits until the pipe reaches its end, `timeout` seconds at most (a
    /// process the worker started may hold it open).
    func finish(timeout: Double) {
        var watched = pollfd(fd: ended.fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&watched, 1, Int32(timeout * 1000))
    }

    /// Reads lines until the end of the pipe.
    private func read() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending += chunk[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                take(Array(pending[..<newline]))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { take(pending) }
        close(readEnd)
        ended.signal()
    }

    /// Logs and keeps one line.
    private func take(_ line: [UInt8]) {
        guard let (level, source, message) = Self.record(in: line) else {
            _ = FileContents.write(line + [UInt8(ascii: "\n")], to: 2)
            return log.keep(line: String(decoding: line, as: UTF8.self))
        }
        Logger(label: source).log(level: level, "\(message)")
        log.keep(level, source: source, message)
    }

    /// The level, source and message of a JSON log line (``LineLogHandler``), or nil.
    private static func record(in line: [UInt8]) -> (Logger.Level, String, String)? {
        line.withUnsafeBytes { bytes in
            var reader = JSONReader(maxDepth: 4)
            guard let document = try? reader.parse(bytes), document.root.kind == .object,
                  let level = document.root.member(named: "level").flatMap({ Logger.Level(rawValue: $0.text) }),
                  let source = document.root.member(named: "source")?.text,
                  let message = document.root.member(named: "message")?.text
            else { return nil }
            return (level, source, message)
        }
    }
}
