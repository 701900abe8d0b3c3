#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostMessage
import PushHostRecords
import PushHostSystem

/// The messages the host delivered, kept in the state directory so that an
/// action event finds its message, across restarts too (docs/running.md, actions).
///
/// Two files of NDJSON, `STATE/delivered.ndjson` and the one before it,
/// `STATE/delivered.1.ndjson`, mode 0600. Each message the UI stage reached
/// appends one line holding its id, its source and its record as it came
/// (or as the host rewrote it); a message that was not delivered appends
/// only its id and status, so that an action on it is refused with the
/// reason. When the current file holds `limit` lines, or the next line
/// would take it past half of `byteLimit`, it becomes the previous one,
/// which drops the oldest: the store keeps the last `limit` to `2 * limit`
/// messages, and its two files never hold more than `byteLimit` bytes
/// together (any sender can fill it with large pushes).
///
/// Lines wait in a buffer and are written out once the oldest waited a
/// second (and before a search, and at the end of the run), so a burst of
/// messages writes only what the store keeps. The buffer holds two
/// generations of lines: when the newer one reaches `limit` lines (or
/// 8 MiB), it becomes the older, and the older one is dropped (no line is
/// moved), and then the files, older still, are replaced. A crash loses
/// at most the last second.
///
/// ```
/// {"id":"m-101","status":"delivered","source":{"kind":"stdin","line":2},"record":{"message_id":"m-101",...}}
/// {"id":"m-106","status":"suppressed"}
/// ```
///
/// Writing a line costs a copy of the record's bytes: no normalized JSON is
/// built for it. Finding a message (rare: a person acted) reads both
/// files, newest line first.
package final class DeliveredStore {
    let limit: Int
    /// The most bytes its two files hold together.
    let byteLimit: Int
    let current: String
    let previous: String
    private var fd: Int32
    /// The lines and bytes of the current file; nil until the first write counts them.
    private var lines: Int?
    private var bytes = 0
    /// Lines not written yet, and where each ends in `buffer`: the newer
    /// generation, and the older one before it.
    // Unchecked: the dispatch thread alone touches them, and each access
    // would cost more than the write it guards.
    // Each one's whole room at once: pages never written take no memory,
    // and a burst never copies a generation to grow it.
    @exclusivity(unchecked) private var buffer = ByteBuffer(capacity: generationBytes + (1 << 16))
    @exclusivity(unchecked) private var pendingEnds: [Int] = []
    @exclusivity(unchecked) private var older = ByteBuffer(capacity: generationBytes + (1 << 16))
    @exclusivity(unchecked) private var olderEnds: [Int] = []
    /// Whether a generation was dropped, so the files hold only older lines.
    private var filesOutdated = false
    /// When lines were last written out (monotonic ns).
    private var lastWrite: UInt64 = 0
    /// How long a line may wait in the buffer: 1 s.
    private static let writeDelay: UInt64 = 1_000_000_000
    /// The most a generation of the buffer holds before it becomes the
    /// older one: 8 MiB (the two together, 16 MiB).
    private static let generationBytes = 8 << 20
    /// `,"platform":"android","target_key":"k"`: what reading a record again
    /// needs to know of this run's flags, when they are not the defaults.
    private let readingFlags: [UInt8]
    private let logger: Logger
    /// The first write that failed; the store takes nothing more after it.
    private(set) var failure: String?
    /// Its writes and their failures, counted for `--metrics`.
    private let counted: WriteCounters?

    /// The store in `directory`, for records read with `platform` and `targetKey`.
    init(
        directory: String, limit: Int, byteLimit: Int = DeliveredStore.defaultByteLimit, platform: Platform?, targetKey: String,
        counted: WriteCounters? = nil, logger: Logger
    ) throws(SetupError) {
        self.limit = max(limit, 1)
        self.byteLimit = max(byteLimit, 2)
        self.counted = counted
        self.logger = logger
        current = directory + "/delivered.ndjson"
        previous = directory + "/delivered.1.ndjson"
        var flags: [UInt8] = []
        if let platform {
            flags.append(contentsOf: ",\"platform\":".utf8)
            JSONWriter.appendString(platform.rawValue, to: &flags)
        }
        if targetKey != StoredMessage.defaultTargetKey {
            flags.append(contentsOf: ",\"target_key\":".utf8)
            JSONWriter.appendString(targetKey, to: &flags)
        }
        readingFlags = flags
        fd = try Self.open(current)
        lastWrite = MonotonicClock.now()
    }

    /// `--store-mib`'s default: 64 MiB.
    package static let defaultByteLimit = 64 << 20

    /// Counts the lines of the current file, once, before the first write
    /// (not at start: a run that delivers nothing never reads the file); a
    /// line a crash cut short is ended there, so the next one starts clean.
    private func countLines() -> Int {
        guard let contents = (try? RegularFile.read(current, links: .refuse)) ?? nil else { return 0 }
        bytes = contents.count
        if let last = contents.last, last != UInt8(ascii: "\n"), FileContents.write([UInt8(ascii: "\n")], to: fd) { bytes += 1 }
        return contents.withUnsafeBytes { Self.lineCount($0) }
    }

    deinit {
        write()
        close(fd)
    }

    /// How many line feeds `bytes` holds.
    private static func lineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard var at = bytes.baseAddress else { return 0 }
        let end = at + bytes.count
        var count = 0
        while at < end, let found = memchr(at, 0x0A, end - at) {
            count += 1
            at = UnsafeRawPointer(found) + 1
        }
        return count
    }

    private static func open(_ path: String) throws(SetupError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupError("delivered store \(path): \(FileProblem(opening: path, errno: errno, noFollow: true))") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw SetupError("delivered store \(path): \(FileProblem(kind: info.st_mode))")
        }
        return fd
    }

    // MARK: Writing

    /// Notes what became of `message`: its record when it was delivered,
    /// else its status.
    func note(_ message: Message, status: Status) {
        guard failure == nil else { return }
        // One access to each buffer for the whole line: the accesses of a
        // class's properties are checked one by one.
        Self.writeLine(of: message, status: status, flags: readingFlags, into: &buffer)
        written()
    }

    /// Writes the store's line of `message` into `buffer`.
    private static func writeLine(
        of message: Message, status: Status, flags: [UInt8], into buffer: inout ByteBuffer
    ) {
        let record = message.recordBytes
        buffer.reserve(160 + record.count + flags.count)
        buffer.write("{\"id\":")
        if case .stdin(let line) = message.source, !message.hasOwnID {
            // The common case, written without a detour: "stdin-7", {"kind":"stdin","line":7}.
            buffer.write("\"stdin-")
            let digits = buffer.count
            buffer.write(decimal: line)
            let number = UnsafeRawBufferPointer(rebasing: buffer.bytes[digits...])
            buffer.write("\"")
            guard status == .delivered else { return writeStatus(status, into: &buffer) }
            buffer.write(",\"status\":\"delivered\",\"source\":{\"kind\":\"stdin\",\"line\":")
            buffer.write(number)
            buffer.write("}")
        } else {
            // Appended, each checking for room: an id or a file name has no bound.
            message.appendCanonicalIDJSON(to: &buffer)
            guard status == .delivered else { return writeStatus(status, into: &buffer) }
            buffer.append(ascii: ",\"status\":\"delivered\",\"source\":")
            message.source.appendJSON(to: &buffer)
            buffer.reserve(32 + record.count + flags.count)
        }
        if message.isNormalizedForm {
            buffer.write(",\"normalized\":")
        } else {
            flags.withUnsafeBytes { buffer.write($0) }
            buffer.write(",\"record\":")
        }
        let start = buffer.count
        buffer.write(record)
        if case .spool = message.source {
            // A file's record may span lines; its line breaks sit between
            // tokens (a string cannot hold a raw one): spaces keep it on one.
            buffer.replace(0x0A, with: UInt8(ascii: " "), since: start)
        }
        buffer.write("}\n")
    }

    /// Ends the line of a message that was not delivered: its status only.
    private static func writeStatus(_ status: Status, into buffer: inout ByteBuffer) {
        buffer.append(ascii: ",\"status\":")
        buffer.append(ascii: status.quoted)
        buffer.append(ascii: "}\n")
    }

    private func written() {
        pendingEnds.append(buffer.count)
        if pendingEnds.count >= limit || buffer.count >= Self.generationBytes { age() }
    }

    /// The newer generation becomes the older one. The older one, when
    /// there is one, is dropped: it is older than what the store keeps,
    /// and so is everything in the files.
    private func age() {
        if !olderEnds.isEmpty { filesOutdated = true }
        swap(&older, &buffer)
        swap(&olderEnds, &pendingEnds)
        buffer.removeAll()
        pendingEnds.removeAll(keepingCapacity: true)
    }

    /// Whether lines wait to be written.
    private var hasLines: Bool { !buffer.isEmpty || !older.isEmpty }

    /// Writes out the buffered lines once the oldest waited a second: a
    /// burst writes only what the store keeps.
    func writeIfDue() {
        if hasLines && MonotonicClock.now() &- lastWrite >= Self.writeDelay { write() }
    }

    /// Milliseconds until `writeIfDue` writes, or -1 when nothing waits.
    func millisecondsToWrite() -> Int32 {
        guard hasLines else { return -1 }
        let left = Int64(bitPattern: lastWrite &+ Self.writeDelay &- MonotonicClock.now())
        return Int32(max(0, left / 1_000_000 + 1))
    }

    /// Writes out the buffered lines now, starting a new file each `limit` lines.
    func write() {
        defer {
            older.removeAll()
            olderEnds.removeAll(keepingCapacity: true)
            buffer.removeAll()
            pendingEnds.removeAll(keepingCapacity: true)
            lastWrite = MonotonicClock.now()
        }
        guard hasLines, failure == nil else { return }
        counted?.writes.increment()
        if filesOutdated {
            filesOutdated = false
            if unlink(previous) != 0 && errno != ENOENT { return fail("cannot remove \(previous)") }
            if unlink(current) != 0 && errno != ENOENT { return fail("cannot remove it") }
            guard reopen() else { return }
            lines = 0
            bytes = 0
        }
        var lines = self.lines ?? countLines()
        defer { self.lines = lines }
        guard write(older, ends: olderEnds, lines: &lines) else { return }
        _ = write(buffer, ends: pendingEnds, lines: &lines)
    }

    /// Writes the lines of one generation, `bytes` with their `ends`, after
    /// the `lines` of the current file, starting a new file each `limit`
    /// lines; false when writing failed.
    private func write(_ buffer: borrowing ByteBuffer, ends pendingEnds: [Int], lines: inout Int) -> Bool {
        var start = 0
        var next = 0
        while next < pendingEnds.count {
            // The lines that fit the current file, by count and by bytes (one at least in an empty file).
            var count = 0
            while next + count < pendingEnds.count && lines + count < limit
                && (lines + count == 0 || bytes + pendingEnds[next + count] - start <= byteLimit / 2)
            {
                count += 1
            }
            guard count > 0 else {
                guard rotate() else { return false }
                lines = 0
                bytes = 0
                continue
            }
            let end = pendingEnds[next + count - 1]
            guard FileContents.write(UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<end]), to: fd) else {
                fail("write failed")
                return false
            }
            lines += count
            bytes += end - start
            next += count
            start = end
        }
        return true
    }

    /// The current file becomes the previous one, replacing it; a new one starts.
    private func rotate() -> Bool {
        // The previous file goes first: renaming over it would make ext4
        // write the current one out at once (auto_da_alloc), each time.
        if unlink(previous) != 0 && errno != ENOENT {
            fail("cannot remove \(previous)")
            return false
        }
        guard rename(current, previous) == 0 else {
            fail("cannot rename it to \(previous)")
            return false
        }
        return reopen()
    }

    private func reopen() -> Bool {
        close(fd)
        do {
            fd = try Self.open(current)
            return true
        } catch {
            fd = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
            fail("\(error)")
            return false
        }
    }

    private func fail(_ what: String) {
        let text = "delivered store \(current): \(what): \(String(cString: strerror(errno)))"
        failure = text
        counted?.failures.increment()
        logger.error("\(text); actions find no message delivered from now on")
    }

    // MARK: Finding

    /// What the store knows of a message id.
    enum Found {
        case delivered(StoredMessage)
        /// Seen, with this status, and not delivered.
        case notDelivered(String)
        case unknown
    }

    /// The newest line for `id`.
    func find(_ id: String) -> Found {
        write()
        var needle = Array("{\"id\":".utf8)
        JSONWriter.appendString(id, to: &needle)
        needle.append(contentsOf: ",\"status\":\"".utf8)
        for path in [current, previous] {
            guard let bytes = try? RegularFile.read(path, links: .refuse),
                let line = Self.lastLine(in: bytes, startingWith: needle)
            else { continue }
            let status = line.dropFirst(needle.count).prefix { $0 != UInt8(ascii: "\"") }
            guard status.elementsEqual(Status.delivered.rawValue.utf8) else {
                return .notDelivered(String(decoding: status, as: UTF8.self))
            }
            return StoredMessage(line: Array(line)).map(Found.delivered) ?? .unknown
        }
        return .unknown
    }

    /// The last line of `bytes` that starts with `prefix`.
    private static func lastLine(in bytes: [UInt8], startingWith prefix: [UInt8]) -> ArraySlice<UInt8>? {
        var end = bytes.count
        while end > 0 {
            var start = end - 1
            while start > 0 && bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
            let line = bytes[start..<end].prefix { $0 != UInt8(ascii: "\n") }
            if line.starts(with: prefix) { return line }
            end = start
        }
        return nil
    }
}

extension Message {
    /// Whether the payload has an id of its own (else the host made one).
    var hasOwnID: Bool { layout.id >= 0 }

    /// Appends the id as a JSON string with nothing escaped that need not
    /// be, so that one id always has the same bytes.
    func appendCanonicalIDJSON<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        guard layout.id >= 0, value(layout.id).isEscaped else { return appendIDJSON(to: &bytes) }
        value(layout.id).textBytes.withUnsafeBytes { JSONWriter.appendString($0, to: &bytes) }
    }
}
