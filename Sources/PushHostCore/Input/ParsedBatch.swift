/// A block of standard input as the reader thread hands it over: its bytes,
/// the lines in it, each already parsed, and the tape they were parsed into.
///
/// The reader thread fills a batch, then the dispatch thread reads it, then
/// it goes back to the reader; `StdinReader` passes it between them.
final class ParsedBatch: @unchecked Sendable {
    enum Record {
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
    private(set) var records: [Record] = []
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

    /// Parses `line`, a view into `bytes`, with `reader` and keeps the outcome.
    func append(_ line: LineReader.Line, reader: borrowing JSONReader) {
        switch line {
        case .record(let text, let number):
            do {
                let document = try reader.parse(text, into: tape + tapeUsed)
                tapeUsed += document.tape.count
                records.append(.parsed(document, line: number))
            } catch {
                records.append(.invalid(error, line: number))
            }
        case .tooLong(let number):
            records.append(.tooLong(line: number))
        }
    }

    /// Empties the batch for the reader thread to fill again.
    func reset() {
        records.removeAll(keepingCapacity: true)
        tapeUsed = 0
        isLast = false
        failure = nil
    }
}
