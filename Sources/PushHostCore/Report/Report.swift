/// The last stage: writes each record's report line (when `--report` is
/// given), counts what was rejected or failed, and tells the record's
/// source its result once the line is out.
final class Report {
    private let writer: ReportWriter?
    /// Records rejected, and records failed (a message's data stage, or a
    /// token that could not be stored), so far.
    private(set) var rejectedCount = 0
    private(set) var failedCount = 0

    /// A report into `destination` (a file, `-` for standard output), or none.
    init(destination: String?) throws(SetupError) {
        writer = try destination.map { destination throws(SetupError) in try ReportWriter(destination: destination) }
    }

    /// Counts a record's `result`; then, when there is a report or the
    /// record's source asked, writes the line that `line` builds (on the
    /// hot path, nothing is built for nobody), flushes it and calls
    /// `completion` with the result.
    func write<Line: ReportLine>(_ result: RecordResult, completion: RecordCompletion?, _ line: () -> Line) {
        switch result {
        case .done, .stopped: break
        case .retry: failedCount += 1
        case .rejected: rejectedCount += 1
        }
        guard let completion else {
            if let writer { writer.append(line()) }
            return
        }
        let built = line()
        let bytes: [UInt8]
        if let writer {
            bytes = writer.append(built, keeping: true)!
            writer.flush()
        } else {
            var json = JSONLine()
            built.write(into: &json)
            bytes = json.closed()
        }
        completion(RecordOutcome(result: result, problem: built.problem, line: bytes))
    }

    /// Writes out every buffered line.
    func flush() {
        writer?.flush()
    }
}
