#if canImport(Glibc)
import Glibc
#endif

/// Splits a byte stream (standard input) into NDJSON lines, reading it in
/// large blocks.
///
/// A record is a view into the block buffer, valid until the next `fill()`:
/// whoever keeps it longer copies it. A line's trailing `\r` is dropped,
/// blank lines are skipped (their numbers still count), and the last line
/// needs no newline. A line longer than `maxBytes` is never buffered whole:
/// it is handed out once as `.tooLong` and the rest of it is skipped.
///
/// ```
/// while !reader.finished {
///     while let line = reader.next() { handle(line) }
///     try reader.fill()
/// }
/// ```
final class LineReader {
    enum Line {
        case record(UnsafeRawBufferPointer, line: Int)
        case tooLong(line: Int)
    }

    let fd: Int32
    let maxBytes: Int
    /// Written only by `fill()`, which borrowed contents never need.
    private let buffer: UnsafeMutableRawBufferPointer
    private var ownsBuffer = true
    private var start = 0
    private var end = 0
    /// Inside a line already handed out as too long.
    private var skipping = false
    private var atEnd = false
    private var lineNumber = 0

    init(fd: Int32, maxBytes: Int, blockSize: Int = 1 << 20) {
        self.fd = fd
        self.maxBytes = maxBytes
        buffer = .allocate(byteCount: max(blockSize, maxBytes + 2), alignment: 16)
    }

    /// Lines of bytes already in memory (a spool file), borrowed, not
    /// copied: the lines are views into `contents`, which must outlive them.
    init(contents: UnsafeRawBufferPointer, maxBytes: Int) {
        fd = -1
        self.maxBytes = maxBytes
        buffer = UnsafeMutableRawBufferPointer(mutating: contents)
        ownsBuffer = false
        end = contents.count
        atEnd = true
    }

    deinit {
        if ownsBuffer { buffer.deallocate() }
    }

    /// Whether the input has ended and every line was handed out.
    var finished: Bool { atEnd && start == end }

    /// The next line in the buffer, or nil when `fill()` must read more first.
    func next() -> Line? {
        guard let base = buffer.baseAddress else { return nil }
        while start < end {
            guard let newline = memchr(base + start, 0x0A, end - start) else {
                if atEnd { return take(upTo: end, resumingAt: end) }
                if !skipping && end - start > maxBytes + 1 {
                    skipping = true
                    lineNumber += 1
                    start = end
                    return .tooLong(line: lineNumber)
                }
                if skipping { start = end }
                return nil
            }
            let stop = UnsafeRawPointer(base).distance(to: newline)
            if let line = take(upTo: stop, resumingAt: stop + 1) { return line }
        }
        return nil
    }

    /// Reads one more block (blocking); at end of input, `finished` turns true
    /// once the last line was taken.
    func fill() throws(SetupError) {
        guard !atEnd else { return }
        let base = buffer.baseAddress!
        if start > 0 {
            memmove(base, base + start, end - start)
            end -= start
            start = 0
        }
        while true {
            let count = read(fd, base + end, buffer.count - end)
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                atEnd = true
                throw SetupError("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true }
            end += count
            return
        }
    }

    /// The line at `start..<stop`, moving on to `next`; nil for a blank line
    /// or the tail of a skipped one.
    private func take(upTo stop: Int, resumingAt next: Int) -> Line? {
        let first = start
        start = next
        if skipping {
            skipping = false
            return nil
        }
        lineNumber += 1
        var last = stop
        if last > first && buffer[last - 1] == 0x0D { last -= 1 }
        if last - first > maxBytes { return .tooLong(line: lineNumber) }
        var probe = first
        while probe < last, buffer[probe] == 0x20 || buffer[probe] == 0x09 || buffer[probe] == 0x0D { probe += 1 }
        if probe == last { return nil }
        return .record(UnsafeRawBufferPointer(rebasing: buffer[first..<last]), line: lineNumber)
    }
}
