import Logging
import PushHostJSON
import PushHostRecords
import PushHostSystem
import PushHostIntake

/// The last stage: writes each record's report line (when `--report` is
/// given), counts what was rejected or failed, and tells the record's
/// source its result once the line is out.
///
/// A report that cannot be written (a full disk, `/dev/full`) does not stop
/// anything by itself: the first failure is logged once and kept in
/// `failure`, and `sync` answers false from then on. The host asks `sync`
/// before a spool file leaves `new/`, and stops its intake when it says
/// false, so no record is taken as handled without its line on disk.
package final class Report {
    private let writer: ReportWriter?
    /// Records rejected, and records failed (a message's data stage, or a
    /// token that could not be stored), so far; and records handled
    /// otherwise (a `done` result: delivered, suppressed, undelivered, an
    /// event applied).
    private(set) package var doneCount = 0
    private(set) package var rejectedCount = 0
    private(set) package var failedCount = 0

    /// A report appended to `destination` (a file, `-` for standard output),
    /// or none; a write failure is logged to `logger`.
    /// With `counted`, its writes are counted (`--metrics`).
    package init(destination: String?, counted: WriteCounters? = nil, logger: Logger = Logger(label: "pushhost")) throws(SetupError) {
        writer = try destination.map { destination throws(SetupError) in
            try ReportWriter(destination: destination, counted: counted, logger: logger)
        }
    }

    /// The first failed write or `fsync` of the report, as logged
    /// (`report PATH: write failed: No space left on device`); nil while
    /// every line got out, and always nil without a report.
    package var failure: String? { writer?.failure }

    /// Counts a record's `result`; then, when there is a report or the
    /// record's source asked, writes the line that `line` builds (on the
    /// hot path, nothing is built for nobody), flushes it and calls
    /// `completion` with the result.
    func write<Line: ReportLine>(_ result: RecordResult, completion: RecordCompletion?, _ line: () -> Line) {
        count(result)
        guard completion != nil else {
            if let writer { writer.append(line()) }
            return
        }
        deliver(line(), result, completion: completion, observer: nil)
    }

    /// `write`, for a line that `observer` gets too (as a C string, before
    /// `completion`), so it is built even without a report.
    func write<Line: ReportLine>(
        _ result: RecordResult, completion: RecordCompletion?, _ line: () -> Line, observer: (UnsafePointer<CChar>) -> Void
    ) {
        count(result)
        withoutActuallyEscaping(observer) { deliver(line(), result, completion: completion, observer: $0) }
    }

    private func count(_ result: RecordResult) {
        switch result {
        case .done: doneCount &+= 1  // No overflow check on the hot path: an Int does not overflow.
        case .stopped: break
        case .retry: failedCount += 1
        case .rejected: rejectedCount += 1
        }
    }

    /// Writes `built` (when there is a report) and flushes it, and hands it
    /// to `observer` (a NUL-terminated copy), then `completion`.
    private func deliver<Line: ReportLine>(
        _ built: Line, _ result: RecordResult, completion: RecordCompletion?, observer: ((UnsafePointer<CChar>) -> Void)?
    ) {
        let bytes: [UInt8]
        if let writer {
            bytes = writer.append(built, keeping: true)!
            writer.flush()
        } else {
            var buffer = ByteBuffer()
            var json = JSONLine(appendingTo: &buffer)
            built.write(into: &json)
            // Held in a constant while it is copied: its memory goes with it.
            let closed = json.closed()
            bytes = Array(closed.bytes)
        }
        if let observer {
            (bytes + [0]).withUnsafeBufferPointer { observer(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
        }
        completion?(RecordOutcome(result: result, problem: built.problem, line: bytes))
    }

    /// Writes out every buffered line.
    func flush() {
        writer?.flush()
    }

    /// Writes out every buffered line and, when the report is a regular file
    /// (standard output redirected into one included), `fsync`s it, so the
    /// lines survive a crash or a power loss; pipes and character devices
    /// have nothing to sync. True when there is no report; false once any
    /// write or `fsync` failed, and for the rest of the run.
    package func sync() -> Bool {
        writer?.sync() ?? true
    }
}
