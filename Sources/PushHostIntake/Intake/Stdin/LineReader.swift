#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// Splits a byte stream (standard input, a spool file) into NDJSON lines, reading it in
/// large blocks into buffers its caller provides.
///
/// A record is a view into the buffer it was read into. Each `fill(into:)`
/// may name a new buffer: the unfinished line at the end of the previous
/// one moves to its start, and the lines already handed out stay valid for
/// as long as their own buffer is left alone. A line's trailing `\r` is
/// dropped, blank lines are skipped (their numbers still count), and the
/// last line needs no newline. A line longer than `maxBytes` is never
/// buffered whole: it is handed out once as `.tooLong` and the rest of it is
/// skipped, so a buffer of `maxBytes + 2` bytes always has room to read.
///
/// ```
/// while !reader.finished {
///     try reader.fill(into: buffer)
///     while let line = reader.next() { handle(line) }
/// }
/// ```
struct LineReader {
    package enum Line {
        case record(UnsafeRawBufferPointer, line: Int)
        case tooLong(line: Int)
    }

    let fd: Int32
    let maxBytes: Int
    let input: String
    /// The buffer lines come from: the last one filled.
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var start = 0
    private var end = 0
    /// Inside a line already handed out as too long.
    private var skipping = false
    private var atEnd = false
    private var lineNumber = 0
    /// How many bytes `fill(into:)` read so far.
    private(set) var bytesRead = 0

    /// Lines of `fd`; `input` names it in errors (`standard input`, a spool file's path).
    init(fd: Int32, maxBytes: Int, input: String = "standard input") {
        self.fd = fd
        self.maxBytes = maxBytes
        self.input = input
    }

    /// Whether the input has ended and every line was handed out.
    var finished: Bool { atEnd && start == end }

    /// The offset in the input of the first byte not handed out yet (inside
    /// a line being skipped, the first byte not read yet).
    var offset: Int { bytesRead - (end - start) }

    /// The next line in the buffer, or nil when `fill()` must read more first.
    mutating func next() -> Line? {
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

    /// Moves the unfinished line to the start of `target` (at least
    /// `maxBytes + 2` bytes; it may be the current buffer) and reads one more
    /// block after it, blocking. At end of input, `finished` turns true once
    /// the last line was taken.
    mutating func fill(into target: UnsafeMutableRawBufferPointer) throws(SetupError) {
        guard !atEnd else { return }
        precondition(target.count >= maxBytes + 2, "a buffer must hold a line of --max-bytes and its newline")
        let base = target.baseAddress!
        if end > start { memmove(base, buffer.baseAddress! + start, end - start) }
        end -= start
        start = 0
        buffer = target
        while true {
            let count = read(fd, base + end, buffer.count - end)
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                atEnd = true
                throw SetupError("cannot read \(input): \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true }
            end += count
            bytesRead += count
            return
        }
    }

    /// The line at `start..<stop`, moving on to `next`; nil for a blank line
    /// or the tail of a skipped one.
    private mutating func take(upTo stop: Int, resumingAt next: Int) -> Line? {
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
