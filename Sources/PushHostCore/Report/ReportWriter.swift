#if canImport(Glibc)
import Glibc
#endif

/// Writes the report file (`--report FILE`, `-` for standard output): one
/// JSON line per record, in input order.
///
/// Lines are built in one reused buffer and written in large blocks; `flush`
/// pushes out what is buffered (at the end of a run, before the host waits
/// for input, and before a record's source learns its result).
final class ReportWriter {
    private let fd: Int32
    private let closeWhenDone: Bool
    private var buffer: [UInt8] = []

    /// The report on standard output (`-`) or in `path`, created or truncated.
    init(destination: String) throws(SetupError) {
        if destination == "-" {
            fd = 1
            closeWhenDone = false
        } else {
            fd = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SetupError("report \(destination): \(String(cString: strerror(errno)))") }
            closeWhenDone = true
        }
        buffer.reserveCapacity(1 << 16)
    }

    deinit {
        flush()
        if closeWhenDone { close(fd) }
    }

    /// Appends `line`; with `keeping`, returns a copy of its bytes (without the newline).
    @discardableResult
    func append(_ line: some ReportLine, keeping: Bool = false) -> [UInt8]? {
        let start = buffer.count
        var json = JSONLine(appendingTo: &buffer)
        line.write(into: &json)
        buffer = json.finished()
        let kept = keeping ? Array(buffer[start..<buffer.count - 1]) : nil
        if buffer.count >= 1 << 16 { flush() }
        return kept
    }

    /// Writes out everything buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        FileContents.write(buffer, to: fd)
        buffer.removeAll(keepingCapacity: true)
    }
}
