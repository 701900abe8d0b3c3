import Logging

/// Takes spool files in order, submits their records, and moves each file
/// out of `new/` once every one of its records has its outcome.
///
/// A name is taken once per run: a name already waiting or under way is not
/// queued again (an event and a rescan may both report it), and a name that
/// is gone from `new/` when its turn comes was handled already.
final class SpoolIntake {
    /// A file whose records are under way.
    private struct Progress {
        var remaining = 0
        var submittedAll = false
        var problems: [SpoolProblem] = []
    }

    let spool: Spool
    private let watcher: SpoolWatcher
    private let dispatcher: Dispatcher
    private let logger: Logger
    private var waiting: [String] = []
    private var next = 0
    private var queued: Set<String> = []
    private var underWay: [String: Progress] = [:]
    private var reader = JSONReader()

    /// Arms the watch, then lists what `new/` already holds: nothing that
    /// arrives in between is missed.
    init(spool: Spool, dispatcher: Dispatcher, logger: Logger) throws(SetupError) {
        self.spool = spool
        self.dispatcher = dispatcher
        self.logger = logger
        watcher = try SpoolWatcher(directory: spool.new)
        for name in spool.scan() { enqueue(name) }
        logger.info("watching \(spool.new)")
    }

    /// Readable when files arrived.
    var fd: Int32 { watcher.fd }

    /// Whether no file is under way (files waiting their turn are not: after
    /// a stop they stay in new/ for the next start).
    var nothingUnderWay: Bool { underWay.isEmpty }

    /// Queues what the watcher saw: new names, or after an overflow all of `new/`.
    func takeArrivals() {
        let arrivals = watcher.take()
        if arrivals.rescan {
            logger.warning("the inotify queue overflowed; rescanning \(spool.new)")
        }
        for name in arrivals.names { enqueue(name) }
        if arrivals.rescan {
            for name in spool.scan() { enqueue(name) }
        }
    }

    /// Handles waiting files, in order, while `mayGoOn` says so.
    func handleWaiting(while mayGoOn: () -> Bool) {
        while next < waiting.count, mayGoOn() {
            let name = waiting[next]
            next += 1
            queued.remove(name)
            handle(name)
        }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    /// Notes the outcome of a spool record; the file moves after its last one.
    func recordFinished(_ source: MessageSource, status: String, problem: String?) {
        guard case .spool(let name, let record) = source, var progress = underWay[name] else { return }
        progress.remaining -= 1
        if let problem { progress.problems.append(SpoolProblem(record: record ?? 1, status: status, reason: problem)) }
        underWay[name] = progress
        if progress.submittedAll && progress.remaining == 0 { complete(name) }
    }

    private func enqueue(_ name: String) {
        guard underWay[name] == nil, !queued.contains(name) else { return }
        queued.insert(name)
        waiting.append(name)
    }

    /// Reads `new/NAME` and submits its records: the whole file when it is
    /// one JSON value (on one line or several), else each non-blank line.
    private func handle(_ name: String) {
        guard let contents = spool.contents(of: name) else { return }
        underWay[name] = Progress()
        switch contents {
        case .failure(let error):
            underWay[name]?.problems.append(SpoolProblem(record: nil, status: Status.rejected.rawValue, reason: "\(error)"))
        case .success(let bytes):
            bytes.withUnsafeBytes { submitRecords(of: name, $0) }
        }
        underWay[name]?.submittedAll = true
        if underWay[name]?.remaining == 0 { complete(name) }
    }

    private func submitRecords(of name: String, _ bytes: UnsafeRawBufferPointer) {
        let records = SpoolRecords.split(bytes, maxBytes: dispatcher.options.maxBytes, reader: &reader)
        if records.isEmpty {
            underWay[name]?.problems.append(SpoolProblem(record: nil, status: Status.rejected.rawValue, reason: "the file holds no record"))
            return
        }
        let single = records.count == 1
        for (index, record) in records.enumerated() {
            let source = MessageSource.spool(file: name, record: single ? nil : index + 1)
            underWay[name]?.remaining += 1
            switch record {
            case .record(let record, _): dispatcher.submit(record, source: source)
            case .tooLong: dispatcher.submitTooLong(source: source)
            }
        }
    }

    /// Moves a file whose records all have their outcome, after the report
    /// lines that say so are out.
    private func complete(_ name: String) {
        guard let progress = underWay.removeValue(forKey: name) else { return }
        dispatcher.report?.flush()
        do {
            try spool.finish(name, problems: progress.problems)
        } catch {
            logger.error("spool file \(name): \(error); it stays in new/ and is handled again at the next start")
        }
    }
}
