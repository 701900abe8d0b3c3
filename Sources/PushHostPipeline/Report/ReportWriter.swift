#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostSystem

/// Writes the report file (`--report FILE`, `-` for standard output): one
/// JSON line per record, in input order, appended to what earlier runs wrote.
///
/// The file is opened `O_APPEND` and never truncated, so a restart after a
/// crash keeps the history; a new file is created with mode 0600 (the
/// report names messages and tokens' fates). `FILE` must be a regular file
/// or a character device (`/dev/null`, a terminal); a symbolic link is
/// refused, never followed (`O_NOFOLLOW`), and so are a directory and a
/// FIFO, each with one setup error naming the path and the reason:
///
/// ```
/// error pushhost: report /var/log/ph.ndjson: a symbolic link, which pushhost does not follow
/// ```
///
/// Lines are built in one reused buffer and written in large blocks; `flush`
/// pushes out what is buffered (at the end of a run, before the host waits
/// for input, and before a record's source learns its result). Every write
/// is checked: the first failure is logged once, kept in `failure`, and the
/// report takes no more bytes, so the file holds an unbroken prefix of the
/// run's lines (the last one possibly cut short).
final class ReportWriter {
    /// The path given, for messages.
    let destination: String
    private let fd: Int32
    private let closeWhenDone: Bool
    /// Whether `fd` is a regular file, the only kind `fsync` makes durable.
    private let regular: Bool
    private let logger: Logger
    @exclusivity(unchecked) private var buffer = ByteBuffer(capacity: 1 << 16)
    /// The first write or `fsync` that failed, as logged: `report PATH: write failed: REASON`.
    private(set) var failure: String?
    /// Its writes and their failures, counted for `--metrics`.
    private let counted: WriteCounters?

    /// The report on standard output (`-`) or appended to `destination`.
    init(destination: String, counted: WriteCounters? = nil, logger: Logger) throws(SetupError) {
        self.destination = destination
        self.counted = counted
        self.logger = logger
        if destination == "-" {
            fd = 1
            closeWhenDone = false
        } else {
            fd = try Self.open(destination)
            closeWhenDone = true
        }
        var info = stat()
        regular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    deinit {
        flush()
        if closeWhenDone { close(fd) }
    }

    /// Opens `path` for appending, creating it with mode 0600; refuses what is
    /// neither a regular file nor a character device.
    private static func open(_ path: String) throws(SetupError) -> Int32 {
        // O_NONBLOCK only keeps a FIFO without a reader from stalling the open; writes block as usual.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupError("report \(path): \(FileProblem(opening: path, errno: errno, noFollow: true))") }
        var info = stat()
        let type = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard type == S_IFREG || type == S_IFCHR else {
            close(fd)
            throw SetupError("report \(path): \(FileProblem(kind: info.st_mode))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Appends `line`; with `keeping`, returns a copy of its bytes (without the newline).
    @discardableResult
    func append(_ line: some ReportLine, keeping: Bool = false) -> [UInt8]? {
        let start = buffer.count
        var json = JSONLine(appendingTo: &buffer)
        line.write(into: &json)
        buffer = json.finished()
        let kept = keeping ? Array(UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<buffer.count - 1])) : nil
        if buffer.count >= 1 << 16 { flush() }
        return kept
    }

    /// Writes out everything buffered; after a failure, drops it.
    func flush() {
        guard !buffer.isEmpty else { return }
        if failure == nil {
            counted?.writes.increment()
            if !FileContents.write(buffer.bytes, to: fd) { fail("write failed", errno) }
        }
        buffer.removeAll()
    }

    /// Writes out everything buffered and, for a regular file, `fsync`s it;
    /// false once any write or `fsync` failed.
    func sync() -> Bool {
        flush()
        if failure == nil && regular && fsync(fd) != 0 && errno != EINVAL { fail("fsync failed", errno) }
        return failure == nil
    }

    /// Keeps and logs the first failure.
    private func fail(_ what: String, _ code: Int32) {
        let text = "report \(destination): \(what): \(String(cString: strerror(code)))"
        failure = text
        counted?.failures.increment()
        logger.error("\(text); nothing more is written to it")
    }
}
