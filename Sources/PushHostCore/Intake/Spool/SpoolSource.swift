import Logging

/// Hands the intake the records of each spool file, in order, and moves
/// the file out of `new/` from the completion of its last record, once
/// every one of its records has its outcome.
///
/// A name is taken once per run: a name already waiting or under way is not
/// queued again (an event and a rescan may both report it), and a name that
/// is gone from `new/` when its turn comes was handled already.
final class SpoolSource {
    /// A file whose records are under way.
    private struct Progress {
        var remaining = 0
        var submittedAll = false
        var problems: [SpoolProblem] = []
    }

    let spool: Spool
    private let watcher: SpoolWatcher
    private let maxBytes: Int
    private let journal: CrashJournal
    private let crashLimit: Int
    private let logger: Logger
    private var waiting: [String] = []
    private var next = 0
    private var queued: Set<String> = []
    private var underWay: [String: Progress] = [:]
    private var reader = JSONReader()

    /// Arms the watch, then lists what `new/` already holds: nothing that
    /// arrives in between is missed.
    init(spool: Spool, maxBytes: Int, journal: CrashJournal, crashLimit: Int, logger: Logger) throws(SetupError) {
        self.spool = spool
        self.maxBytes = maxBytes
        self.journal = journal
        self.crashLimit = crashLimit
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

    /// Hands the waiting files to `intake`, in order, while it has room.
    func deliver(to intake: some Intake) {
        while next < waiting.count, intake.hasRoom {
            let name = waiting[next]
            next += 1
            queued.remove(name)
            handle(name, intake)
        }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    private func enqueue(_ name: String) {
        guard underWay[name] == nil, !queued.contains(name) else { return }
        queued.insert(name)
        waiting.append(name)
    }

    /// Reads `new/NAME` and hands over its records: the whole file when it
    /// is one JSON value (on one line or several), else each non-blank line.
    private func handle(_ name: String, _ intake: some Intake) {
        guard let contents = spool.contents(of: name) else { return }
        underWay[name] = Progress()
        if let crash = journal.crashes(of: name), crash.count >= crashLimit {
            giveUp(name, crash, intake)
            return
        }
        switch contents {
        case .failure(let error):
            underWay[name]?.problems.append(SpoolProblem(record: nil, result: .rejected, reason: "\(error)"))
        case .success(let bytes):
            bytes.withUnsafeBytes { hand(name, $0, to: intake) }
        }
        underWay[name]?.submittedAll = true
        if underWay[name]?.remaining == 0 { move(name) }
    }

    /// Hands over, instead of the file's records, one that fails it: the
    /// host crashed on it `--crash-limit` times.
    private func giveUp(_ name: String, _ crash: CrashJournal.Crash, _ intake: some Intake) {
        underWay[name]?.remaining = 1
        underWay[name]?.submittedAll = true
        let times = crash.count == 1 ? "once" : "\(crash.count) times"
        let reason = "\(crash.summary) (\(times): --crash-limit \(crashLimit))"
        intake.take(Record(.failed(reason), source: .spool(file: name, record: nil)) { [unowned self] outcome in
            self.finished(name, record: 1, outcome)
        })
    }

    private func hand(_ name: String, _ bytes: UnsafeRawBufferPointer, to intake: some Intake) {
        let records = SpoolRecords.split(bytes, maxBytes: maxBytes, reader: &reader)
        if records.isEmpty {
            underWay[name]?.problems.append(SpoolProblem(record: nil, result: .rejected, reason: "the file holds no record"))
            return
        }
        let single = records.count == 1
        for (index, line) in records.enumerated() {
            let number = single ? nil : index + 1
            underWay[name]?.remaining += 1
            let content: Record.Content = switch line {
            case .record(let bytes, _): .text(bytes)
            case .tooLong: .tooLong
            }
            intake.take(Record(content, source: .spool(file: name, record: number)) { [unowned self] outcome in
                self.finished(name, record: number ?? 1, outcome)
            })
        }
    }

    /// Notes the outcome of one record of `name`; the file moves after its last one.
    private func finished(_ name: String, record: Int, _ outcome: RecordOutcome) {
        guard var progress = underWay[name] else { return }
        if outcome.result == .stopped {
            // The host stopped before this record ended: the file stays in new/.
            underWay[name] = nil
            return
        }
        progress.remaining -= 1
        if outcome.result != .done {
            progress.problems.append(SpoolProblem(record: record, result: outcome.result, reason: outcome.problem ?? ""))
        }
        underWay[name] = progress
        if progress.submittedAll && progress.remaining == 0 { move(name) }
    }

    /// Moves a file whose records all have their outcome (their report
    /// lines are out by then).
    private func move(_ name: String) {
        guard let progress = underWay.removeValue(forKey: name) else { return }
        do {
            try spool.finish(name, problems: progress.problems)
            journal.forget(name)
        } catch {
            logger.error("spool file \(name): \(error); it stays in new/ and is handled again at the next start")
        }
    }
}
