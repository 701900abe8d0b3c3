import PushHostSystem
import PushHostJSON

/// A block of standard input as the reader thread hands it over: its bytes,
/// the lines in it, each already parsed, and the tape they were parsed into.
///
/// The reader thread fills a batch, then the dispatch thread reads it, then
/// it goes back to the reader; `StdinReader` passes it between them.
@usableFromInline final class ParsedBatch: @unchecked Sendable {
    /// One line of the batch, as the reader found it.
    @usableFromInline enum Line {
        /// A line that is one JSON text, as a document over `bytes` and `tape`.
        case parsed(JSONDocument, line: Int)
        /// A line that is not valid JSON.
        case invalid(JSONError, line: Int)
        /// A line longer than `--max-bytes`.
        case tooLong(line: Int)
    }

    let bytes: UnsafeMutableRawBufferPointer
    /// Room for one token per byte, the most the lines of `bytes` can produce.
    let tape: UnsafeMutablePointer<JSONToken>
    private var tapeUsed = 0
    // Unchecked: the reader thread and the dispatch thread hand a batch
    // over with a semaphore, never touching it together.
    @exclusivity(unchecked) private(set) var records: [Line] = []
    /// The input ended after these records.
    var isLast = false
    /// Reading failed after these records.
    var failure: SetupError?

    init(byteCount: Int) {
        bytes = .allocate(byteCount: byteCount, alignment: 16)
        tape = .allocate(capacity: byteCount)
    }

    deinit {
        bytes.deallocate()
        tape.deallocate()
    }

    /// Parses with `reader` every line `lines` has at hand (views into
    /// `bytes`) and keeps the outcomes.
    func parse(_ lines: inout LineReader, reader: borrowing JSONReader) {
        var records: [Line] = []
        swap(&records, &self.records)
        var used = tapeUsed
        while let line = lines.next() {
            switch line {
            case .record(let text, let number):
                do {
                    let document = try reader.parse(text, into: tape + used)
                    used += document.tape.count
                    records.append(.parsed(document, line: number))
                } catch {
                    records.append(.invalid(error, line: number))
                }
            case .tooLong(let number):
                records.append(.tooLong(line: number))
            }
        }
        tapeUsed = used
        swap(&records, &self.records)
    }

    /// Empties the batch for the reader thread to fill again.
    func reset() {
        records.removeAll(keepingCapacity: true)
        tapeUsed = 0
        isLast = false
        failure = nil
    }
}
