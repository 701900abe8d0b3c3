#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostRecords
import PushHostSystem

/// Hands the intake the records of each spool file, in order, read as the
/// intake has room for them, and moves each file out of `new/` once every
/// one of its records has its outcome and that outcome is durable.
///
/// A name is taken once per run: a name already waiting or under way is not
/// queued again (an event and a rescan may both report it), and a name that
/// is gone from `new/` when its turn comes was handled already. An entry
/// that is not a regular file, or a file with no record, is rejected as a
/// whole: one report line, and the entry goes to `failed/`.
///
/// A file the host crashed on `--crash-limit` times (the crash journal
/// counts them) is not read again: it fails as a whole.
///
/// Moves happen in batches: `moveFinished()`, called once per turn of the
/// run loop, asks `durable()` once (the report lines of the batch must be
/// on disk before any file leaves `new/`), then moves the batch and fsyncs
/// the folders.
package final class SpoolSource: Awaited {
    /// A file whose records are under way.
    private struct Progress {
        /// Records handed to the intake whose outcome is not known yet.
        var outstanding = 0
        var submittedAll = false
        var problems: [SpoolProblem] = []
    }

    /// The file whose records are being read, and how many it gave so far.
    private struct Reading {
        let name: SpoolName
        let fd: Int32
        /// What its records may be: host events only from the host's own user's files.
        let trust: RecordTrust
        /// When it arrived (last written; Unix milliseconds), from which its
        /// messages' time to live counts.
        let arrival: Int64
        var records: SpoolRecords
        var handed = 0
    }

    let spool: Spool
    private let watcher: SpoolWatcher
    private let journal: CrashJournal
    private let crashLimit: Int
    private let logger: Logger
    private let durable: () -> Bool
    /// Whether a spool file may hold host events (`--spool-events`).
    private let events: Bool
    private var waiting: [SpoolName] = []
    private var next = 0
    private var queued: Set<SpoolName> = []
    private var underWay: [SpoolName: Progress] = [:]
    private var reading: Reading?
    /// Files whose records all have their outcome, to move at the next `moveFinished()`.
    private var finished: [SpoolName] = []
    /// Records handed to the intake, over all files, whose outcome is not known yet.
    private var outstanding = 0
    private var reader = JSONReader()
    private let maxBytes: Int
    /// Where records are read: one record of `maxBytes` and a chunk.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Arms the watch, then lists what `new/` already holds: nothing that
    /// arrives in between is missed. `durable` says whether every report
    /// line written so far is on disk; `events`, whether a file of the
    /// host's own user (or root's) may hold host events.
    package init(
        spool: Spool, maxBytes: Int, events: Bool, journal: CrashJournal, crashLimit: Int, logger: Logger,
        durable: @escaping () -> Bool
    ) throws(SetupError) {
        self.spool = spool
        self.events = events
        self.maxBytes = maxBytes
        self.journal = journal
        self.crashLimit = crashLimit
        self.logger = logger
        self.durable = durable
        watcher = try SpoolWatcher(spool: spool)
        buffer = .allocate(byteCount: maxBytes + 2 + (1 << 16), alignment: 8)
        for name in spool.scan() { enqueue(name) }
        logger.info("watching \(spool.new)")
    }

    deinit {
        if let reading { close(reading.fd) }
        buffer.deallocate()
    }

    /// Readable when files arrived.
    var fd: Int32 { watcher.fd }

    /// The watch: files that arrive are queued for their turn.
    package func addWaits(to waits: inout PollSet) {
        waits.watch(fd) { [unowned self] in takeArrivals() }
    }

    /// Whether no record handed out waits for its outcome (files waiting
    /// their turn, or read in part, are not under way: after a stop they
    /// stay in new/ for the next start).
    package var nothingUnderWay: Bool { outstanding == 0 }

    /// The files in `new/` that are not finished: waiting their turn, or under way.
    package var filesInNew: Int { queued.count + underWay.count }

    /// Queues what the watcher saw: new names, or all of `new/` after an
    /// overflow or once a lost layout is made again.
    func takeArrivals() {
        let arrivals = watcher.take()
        for name in arrivals.names { enqueue(name) }
        for name in arrivals.created where spool.holdsOtherThanAFile(name) { enqueue(name) }
        if arrivals.lost {
            recover()
        } else if arrivals.rescan {
            logger.warning("the inotify queue overflowed; rescanning \(spool.new)")
            for name in spool.scan() { enqueue(name) }
        }
    }

    /// Hands records of the waiting files to `intake`, in order, while it has room.
    package func deliver(to intake: some Intake) {
        while intake.hasRoom {
            if reading != nil {
                handNext(to: intake)
                continue
            }
            guard next < waiting.count else { break }
            let name = waiting[next]
            next += 1
            queued.remove(name)
            start(name, intake)
        }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            next = 0
        }
    }

    /// Moves the files whose records all have their outcome, once `durable()`
    /// says those outcomes are on disk; when it says not, they stay in new/.
    package func moveFinished() {
        guard !finished.isEmpty else { return }
        let batch = finished.map { ($0, underWay.removeValue(forKey: $0)?.problems ?? []) }
        finished.removeAll()
        guard durable() else {
            for (name, _) in batch {
                logger.error("spool file \(spool.new)/\(name.printed): its report line is not on disk; it stays in new/ and is handled again at the next start")
            }
            return
        }
        var moved = false
        for (name, problems) in batch {
            do {
                let taken = try spool.finish(name, problems: problems)
                journal.forget(name.printed)
                moved = true
                if taken != name {
                    let clash = problems.isEmpty ? "\(spool.cur)/\(name.printed) exists" : "\(spool.failed)/\(name.printed) or its .error.json exists"
                    logger.warning("spool file \(spool.new)/\(name.printed): \(clash) already; moved under the name \(taken.printed)")
                }
            } catch {
                logger.error("spool file \(spool.new)/\(name.printed): \(error); it stays in new/ and is handled again at the next start")
            }
        }
        guard moved else { return }
        do {
            try spool.syncFolders()
        } catch {
            logger.error("spool \(spool.directory): \(error); the last moves may be undone by a crash")
        }
    }

    private func enqueue(_ name: SpoolName) {
        guard underWay[name] == nil, !queued.contains(name) else { return }
        queued.insert(name)
        waiting.append(name)
    }

    /// The spool directory or one of its folders went away: makes the layout
    /// again, watches it, and takes what new/ holds.
    private func recover() {
        logger.warning("spool \(spool.directory): it or one of its folders was deleted or moved away; making them again")
        // Made, watched, then made again where something went in between
        // (later deletions are watched). A folder deleted before its watch
        // is armed fails the watch: that is tried again, a few times.
        for attempt in 1...3 {
            do {
                try spool.createLayout()
                try watcher.arm(spool)
                try spool.createLayout()
                break
            } catch where attempt < 3 {
                continue
            } catch {
                logger.error("\(error); the spool is no longer watched")
                return
            }
        }
        for name in spool.scan() { enqueue(name) }
    }

    /// Opens `new/NAME` and starts reading it; an entry that cannot be
    /// read is rejected as a whole.
    private func start(_ name: SpoolName, _ intake: some Intake) {
        switch spool.openEntry(name) {
        case .gone:
            return
        case .refused(let reason):
            underWay[name] = Progress()
            refuse(name, reason, intake)
        case .file(let fd, let size, let owner, let written):
            underWay[name] = Progress()
            if let crash = journal.crashes(of: name.printed), crash.count >= crashLimit {
                close(fd)
                return giveUp(name, crash, intake)
            }
            guard size > 0 else {
                close(fd)
                return refuse(name, "empty file: no record", intake)
            }
            let records = SpoolRecords(fd: fd, path: "\(spool.new)/\(name.printed)", buffer: buffer, maxBytes: maxBytes)
            reading = Reading(name: name, fd: fd, trust: trust(ofFileOwnedBy: owner), arrival: written, records: records)
        }
    }

    /// Hands the next record of the file being read, or ends the file.
    private func handNext(to intake: some Intake) {
        guard var current = reading else { return }
        let item: SpoolRecords.Item?
        do {
            item = try current.records.next(&reader)
        } catch {
            return endReading(refusing: "\(error)", intake)
        }
        guard let item else {
            return endReading(refusing: current.handed == 0 ? "no record: the file holds only blank lines" : nil, intake)
        }
        current.handed += 1
        reading = current
        let name = current.name, single = current.records.single
        switch item {
        case .record(let bytes, let line):
            hand(name, .text(bytes), line: line, sourceLine: single ? nil : line, intake)
        case .tooLong(let line):
            hand(name, .tooLong, line: line, sourceLine: single ? nil : line, intake)
        case .invalid(let error, let line):
            hand(name, .invalid(error), line: line, sourceLine: line, intake)
        }
        // A file whose last record is out ends now, not at the next turn:
        // a stop before that turn must not keep it in new/.
        if single || (!intake.hasRoom && (try? current.records.restIsBlank()) == true) {
            endReading(refusing: nil, intake)
        }
    }

    /// Closes the file being read; its last record, if any, is `refusal`.
    private func endReading(refusing refusal: String?, _ intake: some Intake) {
        guard let current = reading else { return }
        reading = nil
        close(current.fd)
        if let refusal { return refuse(current.name, refusal, intake) }
        submittedAll(current.name)
    }

    /// Rejects `name` as a whole, with `reason`.
    private func refuse(_ name: SpoolName, _ reason: String, _ intake: some Intake) {
        hand(name, .refused(reason), line: nil, sourceLine: nil, intake)
        submittedAll(name)
    }

    /// Fails `name` as a whole without reading it: the host crashed on it
    /// `--crash-limit` times.
    private func giveUp(_ name: SpoolName, _ crash: CrashJournal.Crash, _ intake: some Intake) {
        let times = crash.count == 1 ? "once" : "\(crash.count) times"
        hand(name, .failed("\(crash.summary) (\(times): --crash-limit \(crashLimit))"), line: nil, sourceLine: nil, intake)
        submittedAll(name)
    }

    /// What the records of a file that `owner` owns may be: another local
    /// user who may write into the spool may send messages, never host events.
    private func trust(ofFileOwnedBy owner: uid_t) -> RecordTrust {
        guard events else { return .messageOnly(.spoolEventsOff) }
        guard owner == geteuid() || owner == 0 else {
            return .messageOnly(.spoolFileOf(user: owner))
        }
        return .operatorOwn
    }

    /// Hands one record of `name` to `intake`; `line` is where
    /// `NAME.error.json` says it is, `sourceLine` where the report does.
    private func hand(_ name: SpoolName, _ content: Record.Content, line: Int?, sourceLine: Int?, _ intake: some Intake) {
        underWay[name]?.outstanding += 1
        outstanding += 1
        let trust = reading?.trust ?? .operatorOwn
        let source = RecordSource.spool(file: name.printed, line: sourceLine)
        intake.take(Record(content, source: source, trust: trust, arrival: reading?.arrival ?? 0) { [unowned self] outcome in
            self.finished(name, line: line, outcome)
        })
    }

    private func submittedAll(_ name: SpoolName) {
        underWay[name]?.submittedAll = true
        if underWay[name]?.outstanding == 0 { finished.append(name) }
    }

    /// Notes the outcome of one record of `name`; the file is finished after its last one.
    private func finished(_ name: SpoolName, line: Int?, _ outcome: RecordOutcome) {
        outstanding -= 1
        guard var progress = underWay[name] else { return }
        if outcome.result == .stopped {
            // The host stopped before this record ended: the file stays in new/.
            underWay[name] = nil
            return
        }
        progress.outstanding -= 1
        if outcome.result != .done {
            progress.problems.append(SpoolProblem(line: line, result: outcome.result, reason: outcome.problem ?? ""))
        }
        underWay[name] = progress
        if progress.submittedAll && progress.outstanding == 0 { finished.append(name) }
    }
}
