#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON
import PushHostRecords
import PushHostSystem

/// Standard input, read, split into lines and parsed, once it proves long
/// on a thread of its own, so that the dispatch thread only dispatches.
/// Records come out in input order.
///
/// Lines go around a ring of batches. At first the dispatch thread fills
/// each batch itself when it needs the next one: a short input, or one
/// that trickles in, costs no thread. Once `threadAfter` bytes have come
/// in, the reader thread takes over: it takes the next free batch, fills
/// it with the whole lines one `read` brings, parses them, and posts it as
/// ready; the dispatch thread takes ready batches in order and frees each
/// once it has submitted every record in it. No line is copied on the way:
/// a message that must outlive its batch copies itself (`Message.detach`)
/// before the next `fill()` gives the batch back (see ``batchTaken``).
/// The ring bounds memory, since the reader thread waits while every batch
/// is full.
///
/// ```
/// while !input.finished {
///     try input.fill()
///     while let record = input.next() { intake.take(record) }
/// }
/// ```
@usableFromInline package final class StdinReader: @unchecked Sendable {
    private let input: Int32
    /// Where reading stands; the dispatch thread's until the reader thread
    /// starts, the reader thread's after.
    private var lines: LineReader
    private let parser = JSONReader()
    private let batches: [ParsedBatch]
    private let threadAfter: Int
    private var threadStarted = false
    private let ready = PipeSemaphore()
    private let free = PipeSemaphore()
    /// The dispatch thread's place: the batch it reads, how many it took,
    /// and (in `cursor`) that batch's records and the next one.
    private var current: ParsedBatch?
    private var taken = 0
    /// In memory of the reader's own, so that `next()`, inlined in the run
    /// loop (another target), reads and moves it without a dynamic
    /// exclusivity check.
    @usableFromInline let cursor: UnsafeMutablePointer<Cursor>

    @usableFromInline struct Cursor {
        @usableFromInline var records: [ParsedBatch.Line] = []
        @usableFromInline var position = 0
    }

    /// Reads `fd` (standard input) into `batchCount` batches of `blockSize`
    /// bytes (or room for a line of `maxBytes`, if more), on a thread of
    /// its own after the first `threadAfter` bytes. 64 KiB is what one read
    /// of a pipe gives at most, and a ring of four of them stays in a core's
    /// cache while the other core reads it: with 256 KiB the two threads
    /// took up to a tenth more CPU for the same work (docs/performance.md).
    package init(fd: Int32, maxBytes: Int, batchCount: Int = 4, blockSize: Int = 1 << 16, threadAfter: Int = 1 << 20) {
        input = fd
        lines = LineReader(fd: fd, maxBytes: maxBytes)
        batches = (0..<batchCount).map { _ in ParsedBatch(byteCount: max(blockSize, maxBytes + 2)) }
        self.threadAfter = threadAfter
        cursor = .allocate(capacity: 1)
        cursor.initialize(to: Cursor())
    }

    deinit {
        cursor.deinitialize(count: 1)
        cursor.deallocate()
    }

    /// Readable when `fill()` has something to take without waiting:
    /// standard input itself, then the reader thread's ready batches.
    package var fd: Int32 { threadStarted ? ready.fd : input }

    /// Whether every record of the batch at hand was taken: the next
    /// `fill()` gives the batch back, and the documents of its records
    /// stop being valid.
    package var batchTaken: Bool {
        current != nil && cursor.pointee.position == cursor.pointee.records.count
    }

    /// Whether the input ended and every record was taken.
    package var finished: Bool {
        guard let current else { return false }
        return current.isLast && current.failure == nil && cursor.pointee.position == cursor.pointee.records.count
    }

    /// The next record of the batch at hand, or nil when `fill()` must take another.
    @inline(__always)
    @inlinable package func next() -> Record? {
        let position = cursor.pointee.position
        guard position < cursor.pointee.records.count else { return nil }
        cursor.pointee.position = position + 1
        switch cursor.pointee.records[position] {
        case .parsed(let document, let line): return Record(.parsed(document), source: .stdin(line: line), trust: .operatorOwn)
        case .invalid(let error, let line): return Record(.invalid(error), source: .stdin(line: line), trust: .operatorOwn)
        case .tooLong(let line): return Record(.tooLong, source: .stdin(line: line), trust: .operatorOwn)
        }
    }

    /// Frees the batch at hand, once all its records were taken, and takes
    /// the next one: read here, or from the reader thread, blocking until
    /// it is there.
    ///
    /// - Throws: once every record read before it was taken, the error that
    ///   stopped reading.
    package func fill() throws(SetupError) {
        if let current {
            guard cursor.pointee.position == cursor.pointee.records.count else { return }
            if let failure = current.failure { throw failure }
            if current.isLast { return }
            // Let go of its records before the batch is filled again (by
            // the reader thread once freed), so that it reuses their array.
            cursor.pointee.records = []
            if threadStarted { free.signal() }
        }
        let batch = batches[taken % batches.count]
        if threadStarted {
            ready.wait()
        } else {
            Self.fill(batch, from: &lines, parser: parser)
        }
        taken += 1
        cursor.pointee = Cursor(records: batch.records, position: 0)
        current = batch
        if !threadStarted && !batch.isLast && lines.bytesRead >= threadAfter { startThread() }
        if batch.records.isEmpty, let failure = batch.failure { throw failure }
    }

    /// Hands reading over to the reader thread, which goes on from the next
    /// batch; every batch but the one at hand is free.
    private func startThread() {
        threadStarted = true
        for _ in 1..<batches.count { free.signal() }
        // No second thread: go on reading here.
        if DetachedThread.start({ [self] in readBatches() }) != 0 { threadStarted = false }
    }

    /// The reader thread: fills the batches in ring order until the input ends.
    private func readBatches() {
        var lines = self.lines
        var index = taken
        while true {
            free.wait()
            let batch = batches[index % batches.count]
            index += 1
            Self.fill(batch, from: &lines, parser: parser)
            ready.signal()
            if batch.isLast { return }
        }
    }

    /// Empties `batch` and fills it with the whole lines of what one read
    /// of input brings, parsed. One read only, so that the dispatch thread,
    /// which polls the spool beside standard input, never waits here for the
    /// rest of a line: a line left unfinished moves on to the next batch,
    /// and a batch may hold no record.
    private static func fill(_ batch: ParsedBatch, from lines: inout LineReader, parser: borrowing JSONReader) {
        batch.reset()
        do {
            try lines.fill(into: batch.bytes)
        } catch {
            batch.failure = error
            batch.isLast = true
            return
        }
        batch.parse(&lines, reader: parser)
        batch.isLast = lines.finished
    }
}
