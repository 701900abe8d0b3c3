#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON

/// The records of one open spool file, read in bounded memory: never more
/// than `maxBytes` of it (and one chunk) at once, however large it is.
///
/// A file is NDJSON when its first non-blank line is a complete JSON value
/// by itself: then each non-blank line is a record, and a line longer than
/// `maxBytes` is handed out as too long and skipped without being kept.
/// Otherwise the whole file is one JSON document, possibly over several
/// lines: one record, too long when it exceeds `maxBytes`, or invalid with
/// the line and the byte offset (in the file) of its mistake.
///
/// ```
/// var records = SpoolRecords(fd: fd, path: path, buffer: buffer, maxBytes: maxBytes)
/// while let item = try records.next(&reader) { handle(item, alone: records.single) }
/// ```
struct SpoolRecords {
    enum Item {
        /// A record, a view into the buffer valid until the next call.
        case record(UnsafeRawBufferPointer, line: Int)
        case tooLong(line: Int)
        /// A document that is not valid JSON: `line` is where `error.offset` is.
        case invalid(JSONError, line: Int)
    }

    private enum Mode {
        case first, lines, documentDone
    }

    private let fd: Int32
    private let path: String
    private let maxBytes: Int
    private let buffer: UnsafeMutableRawBufferPointer
    private var lines: LineReader
    private var mode = Mode.first
    /// Whether the first item is the file's only record; known once it is out.
    private(set) var single = false

    /// Records of `fd` (the file at `path`, named in errors), read into
    /// `buffer`, which holds at least `maxBytes + 2` bytes.
    init(fd: Int32, path: String, buffer: UnsafeMutableRawBufferPointer, maxBytes: Int) {
        precondition(buffer.count >= maxBytes + 2, "a buffer must hold a record of --max-bytes and its newline")
        self.fd = fd
        self.path = path
        self.buffer = buffer
        self.maxBytes = maxBytes
        lines = LineReader(fd: fd, maxBytes: maxBytes, input: path)
    }

    /// The next record, or nil at the end of the file. `reader` tells
    /// whether the first line is a complete JSON value.
    mutating func next(_ reader: inout JSONReader) throws(SpoolError) -> Item? {
        switch mode {
        case .documentDone:
            return nil
        case .lines:
            return try nextLine()
        case .first:
            guard let first = try nextLine() else { return nil }
            guard case .record(let bytes, let line) = first, (try? reader.parse(bytes)) == nil else {
                mode = .lines
                single = try restIsBlank()
                return first
            }
            mode = .documentDone
            single = true
            return try document(startingOn: line, reader: &reader)
        }
    }

    private mutating func nextLine() throws(SpoolError) -> Item? {
        while true {
            switch lines.next() {
            case .record(let bytes, let line)?: return .record(bytes, line: line)
            case .tooLong(let line)?: return .tooLong(line: line)
            case nil: break
            }
            if lines.finished { return nil }
            do {
                try lines.fill(into: buffer)
            } catch {
                throw SpoolError(error.description)
            }
        }
    }

    /// Whether nothing but whitespace follows what was handed out.
    func restIsBlank() throws(SpoolError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var offset = lines.offset
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SpoolError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return true }
            if chunk[..<count].contains(where: { !Self.isBlank($0) }) { return false }
            offset += count
        }
    }

    /// The whole file as one document whose first line is `line`.
    private func document(startingOn line: Int, reader: inout JSONReader) throws(SpoolError) -> Item {
        var count = 0
        while count <= maxBytes {
            let read = pread(fd, buffer.baseAddress! + count, maxBytes + 1 - count, off_t(count))
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw SpoolError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if read == 0 { break }
            count += read
        }
        if count > maxBytes { return .tooLong(line: line) }
        let document = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        do {
            _ = try reader.parse(document)
            return .record(document, line: line)
        } catch {
            let before = document[..<min(error.offset, count)]
            return .invalid(error, line: 1 + before.count { $0 == UInt8(ascii: "\n") })
        }
    }

    /// JSON whitespace.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
