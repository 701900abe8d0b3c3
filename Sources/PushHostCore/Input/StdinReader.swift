#if canImport(Glibc)
import Glibc
#endif

/// Standard input, read, split into lines and parsed on a thread of its
/// own, so that the dispatch thread only dispatches. Records come out in
/// input order.
///
/// The two threads pass a ring of batches. The reader thread takes the next
/// free one, fills it with the whole lines one `read` brings, parses them,
/// and posts it as ready; the dispatch thread takes ready batches in order
/// and frees each once it has submitted every record in it. No line is
/// copied on the way: a message that must outlive its batch copies itself
/// (`Message.detach`). The ring bounds memory, since the reader thread
/// waits while every batch is full.
///
/// ```
/// while !input.finished {
///     try input.fill()
///     while let record = input.next() { submit(record) }
/// }
/// ```
final class StdinReader: @unchecked Sendable {
    private let input: Int32
    private let maxBytes: Int
    private let batches: [ParsedBatch]
    private let ready = PipeSemaphore()
    private let free: PipeSemaphore
    /// The dispatch thread's place: the batch it reads, how many it took,
    /// and the next record.
    private var current: ParsedBatch?
    private var taken = 0
    private var position = 0

    /// Readable when a batch is ready for `fill()`.
    var fd: Int32 { ready.fd }

    /// Starts the reader thread on `fd`, with `batchCount` batches of
    /// `blockSize` bytes (or room for a line of `maxBytes`, if more).
    init(fd: Int32, maxBytes: Int, batchCount: Int = 4, blockSize: Int = 1 << 18) throws(SetupError) {
        input = fd
        self.maxBytes = maxBytes
        batches = (0..<batchCount).map { _ in ParsedBatch(byteCount: max(blockSize, maxBytes + 2)) }
        free = PipeSemaphore(count: batchCount)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<StdinReader>.fromOpaque(context!).takeRetainedValue().readBatches()
            return nil
        }, context)
        guard started == 0 else { throw SetupError("cannot start the thread that reads standard input") }
        pthread_detach(thread)
    }

    /// Whether the input ended and every record was taken.
    var finished: Bool {
        guard let current else { return false }
        return current.isLast && current.failure == nil && position == current.records.count
    }

    /// The next record of the batch at hand, or nil when `fill()` must take another.
    func next() -> ParsedBatch.Record? {
        guard let current, position < current.records.count else { return nil }
        position += 1
        return current.records[position - 1]
    }

    /// Frees the batch at hand, once all its records were taken, and takes
    /// the next one, blocking until the reader thread has it ready.
    ///
    /// - Throws: once every record read before it was taken, the error that
    ///   stopped reading.
    func fill() throws(SetupError) {
        if let current {
            guard position == current.records.count else { return }
            if let failure = current.failure { throw failure }
            if current.isLast { return }
            free.signal()
        }
        ready.wait()
        let batch = batches[taken % batches.count]
        taken += 1
        position = 0
        current = batch
        if batch.records.isEmpty, let failure = batch.failure { throw failure }
    }

    /// The reader thread: fills the batches in ring order until the input ends.
    private func readBatches() {
        var lines = LineReader(fd: input, maxBytes: maxBytes)
        let parser = JSONReader()
        var index = 0
        while true {
            free.wait()
            let batch = batches[index % batches.count]
            index += 1
            batch.reset()
            repeat {
                do {
                    try lines.fill(into: batch.bytes)
                } catch {
                    batch.failure = error
                    batch.isLast = true
                    break
                }
                batch.parse(&lines, reader: parser)
                batch.isLast = lines.finished
            } while batch.records.isEmpty && !batch.isLast
            ready.signal()
            if batch.isLast { return }
        }
    }
}
