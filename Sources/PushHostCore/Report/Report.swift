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

    /// Writes `line` and, for a record whose source asked, flushes it and
    /// calls `completion` with the result.
    func write(_ line: some ReportLine, completion: RecordCompletion?) {
        switch line.result {
        case .done: break
        case .retry: failedCount += 1
        case .rejected: rejectedCount += 1
        }
        guard let completion else {
            writer?.append(line)
            return
        }
        let bytes: [UInt8]
        if let writer {
            bytes = writer.append(line, keeping: true)!
            writer.flush()
        } else {
            var json = JSONLine()
            line.write(into: &json)
            bytes = json.closed()
        }
        completion(RecordOutcome(result: line.result, problem: line.problem, line: bytes))
    }

    /// Writes out every buffered line.
    func flush() {
        writer?.flush()
    }
}
