import Logging
import Prometheus
import PushHostJSON
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins
import PushHostPort

/// Carries every record the intake takes through the stages, in arrival
/// order: what the record is (a push message, a host event, or rejected),
/// then for a message the interceptors, the data stage, the UI route and its
/// report line, and for an event the app state and its report line; last,
/// the record's completion learns the result.
///
/// A message an interceptor holds leaves the arrival order: the records
/// behind it go on, and it joins the stream when the interceptor releases
/// it (or stops it), behind what arrived meanwhile.
///
/// Records that must wait (a message whose data stage is pending, and every
/// record behind it) queue up in arrival order; a record leaves the queue,
/// with its UI stage and its report line, only when all before it have.
/// The common case, nothing pending and nothing queued, takes no queue and
/// no allocation: one reused in-flight record serves every message.
///
/// Everything here runs on the dispatch thread, so no two handlers of one
/// plugin ever run at once.
package final class Pipeline: Intake, Awaited {
    /// A queued record. Every kind but a message (rare in a queue) is
    /// boxed: a message moves in and out as one reference.
    enum Waiting {
        case message(InFlight)
        indirect case event(HostEvent, RecordSource, RecordCompletion?)
        indirect case rejected(RecordError, RecordSource, RecordCompletion?)
        indirect case unrouted(Unrouted, RecordSource, RecordCompletion?)
    }

    /// A record that gets its report line without any plugin called. Both
    /// kinds share one case of `Waiting`, and one call in `finish`: a
    /// `finish` any bigger, inlined into the dispatch loop, made every
    /// message slower.
    enum Unrouted {
        /// The host gave up on it, for this reason.
        case failed(String)
        /// One of an ntfy stream's own events.
        case skipped(NtfyEvent)
    }

    /// A message whose UI calls end later (elsewhere): its report line
    /// waits for `ticket` (and every line behind it waits too). Not
    /// copied: its record moves on to ``keep(_:)`` with no count taken.
    private struct Delivered: ~Copyable {
        let flight: InFlight
        let route: Route
        /// The visible screens' names, for a route to a screen.
        let screens: [String]?
        let ticket: Ticket?

        /// Its parts, its record moved out.
        consuming func parts() -> (flight: InFlight, route: Route, screens: [String]?) {
            (flight, route, screens)
        }
    }

    package let interceptors: Interceptors
    package let dataStage: DataStage
    /// The plugins that run elsewhere, nil when all run in the host; and
    /// the order of calls across processes. What a plugin set decides
    /// changes at a reload (``install(_:journal:)``), while nothing is under
    /// way: in the stages, which stay, as constants here.
    var places: (any RemotePlaces)?
    let scheduler: CallScheduler
    let route: UIRoute
    let app: AppState
    package let actions: Actions
    package let report: Report
    /// The data plugins' names as report lines write them.
    var reportNames: ReportNames
    let logger: Logger
    private let platform: Platform?
    private let targetKey: [UInt8]
    private let maxBytes: Int
    private let maxPending: Int
    /// Whether any plugin runs in the host, where it gets a message's handle
    /// as its pointer (elsewhere a message's handle is only its calls' name,
    /// and every call with it has ended before its record is kept).
    var handlesReachPlugins: Bool
    /// Whether a message past its lifetime when it arrives still meets the data stage (`--expired-data`).
    let expiredMeetsData: Bool
    /// What `--metrics` counts, when it is on; and its counters of the
    /// messages each interceptor stopped.
    package let metrics: HostMetrics?
    /// Its cells, where each message's line is counted.
    private let counted: CounterCells.Adder?
    var interceptorStops: [String: (suppressed: Counter, failed: Counter)]
    private var reader = JSONReader()
    var current: InFlight
    @exclusivity(unchecked) private(set) var queue = Fifo<Waiting>()
    @exclusivity(unchecked) private var delivered = Fifo<Delivered>()
    /// Whether it takes no record for now (a reload waits for those under way to end).
    package var paused = false
    /// Whether a stop gave up a handler still in its call (the host then
    /// exits with status 4, as when it gives one up in the host).
    private(set) package var gaveUpAtStop = false
    /// The messages that wait and may still read the batch of standard
    /// input they came in, until ``releaseInput()``; and whether the record
    /// being taken reads one.
    @exclusivity(unchecked) private var borrowing = Fifo<Unmanaged<Message>>()
    private var readsInputBatch = false
    /// Records whose line went out after a UI call elsewhere, kept for the
    /// next messages instead of being freed.
    @exclusivity(unchecked) var spare = Fifo<InFlight>()
    /// The message whose data stage or UI stage is under way (not
    /// retained: set only while it is), for a watchdog that gives up on it.
    @exclusivity(unchecked) unowned(unsafe) private(set) var underWay: InFlight?

    init(
        interceptors: Interceptors, dataStage: DataStage, places: (any RemotePlaces)?, scheduler: CallScheduler, route: UIRoute, app: AppState,
        actions: Actions, report: Report, options: RunOptions, handlesReachPlugins: Bool, logger: Logger
    ) {
        self.interceptors = interceptors
        self.dataStage = dataStage
        self.places = places
        self.scheduler = scheduler
        self.route = route
        self.app = app
        self.actions = actions
        self.report = report
        reportNames = ReportNames(data: dataStage.names)
        self.logger = logger
        platform = options.platform
        targetKey = Array(options.targetKey.utf8)
        maxBytes = options.maxBytes
        maxPending = options.maxPending
        self.handlesReachPlugins = handlesReachPlugins
        expiredMeetsData = options.expiredData
        metrics = options.metrics
        counted = metrics?.cells.adder
        interceptorStops = metrics?.interceptorStops(of: interceptors.names) ?? [:]
        current = InFlight(dataPlugins: dataStage.count)
    }

    deinit {
        // The places elsewhere hold its stages without a reference (``Pipeline/make``).
        places?.verdicts = nil
        places?.turns = nil
    }

    private var queueIsEmpty: Bool { queue.isEmpty }

    private var deliveredIsEmpty: Bool { delivered.isEmpty }

    /// Whether nothing waits: no held message, no pending verdict (a data
    /// call elsewhere is one), no queued record, no UI call under way elsewhere.
    package var isIdle: Bool {
        interceptors.heldCount == 0 && dataStage.waiting == 0 && queueIsEmpty && deliveredIsEmpty && !scheduler.hasUIUnderWay
    }

    /// Fewer than `--max-pending` messages are held by interceptors or wait
    /// for `complete`, and the records queued behind them stay bounded too
    /// (64 times as many), so a slow plugin never makes memory grow without end;
    /// and no stop was asked for, so that a burst (a batch of standard
    /// input, spool records, submissions) ends between two records when
    /// SIGINT or SIGTERM comes, not after its last one; nor is it paused.
    package var hasRoom: Bool {
        !paused && interceptors.heldCount + dataStage.waiting < maxPending && queue.count < maxPending * 64
            && delivered.count < maxPending && ShutdownSignal.received.load(ordering: .relaxed) == 0
    }

    /// The records under way: held by interceptors, queued (waiting for a
    /// data verdict or for those before them), or waiting for a UI call
    /// elsewhere; what a source's submissions count against `--max-pending`.
    package var heldCount: Int {
        interceptors.heldCount + queue.count + delivered.count
    }

    // MARK: Arrival

    package func take(_ record: borrowing Record) {
        switch record.content {
        case .text(let bytes):
            do {
                take(try reader.parse(bytes), record)
            } catch {
                arrive(.rejected(RecordError(error), record.source, record.completion))
            }
        case .parsed(let document):
            readsInputBatch = true
            take(document, record)
            readsInputBatch = false
        case .invalid(let error):
            arrive(.rejected(RecordError(error), record.source, record.completion))
        case .tooLong:
            arrive(.rejected(.tooLong(maxBytes), record.source, record.completion))
        case .failed(let reason):
            arrive(.unrouted(.failed(reason), record.source, record.completion))
        case .refused(let reason):
            arrive(.rejected(RecordError(reason: reason), record.source, record.completion))
        }
    }

    /// Takes one parsed record, a host event, a push message or an ntfy
    /// stream's own event; `document` need stay valid only until this returns.
    private func take(_ document: JSONDocument, _ record: borrowing Record) {
        let root = document.root
        guard root.kind == .object else {
            let error = RecordError(offset: 0, reason: "not a JSON object (each record is one object)")
            return arrive(.rejected(error, record.source, record.completion))
        }
        let members = RootMembers(root)
        if members.pushhost >= 0 {
            if case .messageOnly(let why) = record.trust {
                let error = RecordError(reason: "a host event (the key pushhost) is not taken from here: \(why.reason)")
                return arrive(.rejected(error, record.source, record.completion))
            }
            if !queueIsEmpty && scheduler.isOrdered {
                // The messages before it wait for data calls elsewhere: let those end first.
                scheduler.settleAll()
                takeAnswers()
            }
            do {
                return arrive(.event(try HostEvent(name: root.at(members.pushhost), record: root), record.source, record.completion))
            } catch {
                return arrive(.rejected(error, record.source, record.completion))
            }
        }
        if case .hostEvent = record.trust {
            let error = RecordError(reason: "submitted as a host event, but it holds none (no key pushhost)")
            return arrive(.rejected(error, record.source, record.completion))
        }
        if members.isNtfy(root) { return takeNtfy(document, members, record.source, record.completion, arrival: record.arrival) }
        let flight = current
        targetKey.withUnsafeBytes { key in
            flight.message.load(document, members: members, source: record.source, platform: platform, targetKey: key)
        }
        proceed(flight, record.completion, arrival: record.arrival)
    }

    /// Takes an ntfy record (see ``NtfyRecord``) from `source`: one of the
    /// stream's own events, or a message loaded from the record or from its
    /// rewrite, or rejected. Kept out of `take`, record and all, so that
    /// other shapes carry none of it.
    @inline(never)
    private func takeNtfy(
        _ document: JSONDocument, _ members: RootMembers, _ source: RecordSource, _ completion: RecordCompletion?, arrival: Int64
    ) {
        let ntfy: NtfyRecord
        do {
            ntfy = try NtfyRecord(document.root, members: members)
        } catch {
            return arrive(.rejected(error, source, completion))
        }
        let flight = current
        switch ntfy {
        case .skipped(let event):
            return arrive(.unrouted(.skipped(event), source, completion))
        case .message:
            targetKey.withUnsafeBytes { key in
                flight.message.load(document, members: members, source: source, platform: platform, targetKey: key)
            }
        case .rewritten(let rewrite):
            targetKey.withUnsafeBytes { key in
                flight.message.load(rewritten: rewrite, source: source, platform: platform, targetKey: key)
            }
        }
        proceed(flight, completion, arrival: arrival)
    }

    /// Sends the message just loaded into `flight` (the current record),
    /// which arrived at `arrival` (0: now), on: to the interceptors, then
    /// into the ordered stream.
    @inline(__always)
    private func proceed(_ flight: consuming InFlight, _ completion: RecordCompletion?, arrival: Int64) {
        if let completion { flight.completion = completion }
        if flight.message.lifetime != .unlimited { flight.arrival = arrival != 0 ? arrival : wallClockMilliseconds() }
        if !interceptors.isEmpty, interceptors.run(flight) == .held {
            // Its interceptor made it keep a copy of its bytes.
            current = InFlight(dataPlugins: dataStage.count)
            return
        }
        enter(flight, isCurrent: true)
    }

    /// A message the interceptors proceeded, or stopped: its data stage
    /// (unless stopped), then its place in the ordered stream. The current
    /// record (not one an interceptor held) is used again when it is done.
    @inline(__always)
    private func enter(_ flight: consuming InFlight, isCurrent: Bool) {
        underWay = flight
        defer { underWay = nil }
        if flight.interception.stop == nil && (expiredMeetsData || !hasExpired(flight)) { dataStage.run(flight) }
        if queueIsEmpty && dataStage.isDone(flight) {
            if finish(flight) {
                if isCurrent { flight.recycle() }
            } else if isCurrent {
                // Its report line waits for a call elsewhere: it keeps its
                // bytes, and the next message gets another record.
                keepBytes(of: flight)
                current = spare.popLast() ?? InFlight(dataPlugins: dataStage.count)
            }
            return
        }
        if isCurrent {
            // It must wait (for its own data stage or for those before it): it
            // keeps its bytes, and the next message gets a fresh record.
            keepBytes(of: flight)
            current = spare.popLast() ?? InFlight(dataPlugins: dataStage.count)
        }
        queue.append(.message(consume flight))
        drain()
    }

    /// The current record's message, which must wait, keeps its bytes: a
    /// copy now, or, when it reads a batch of standard input, the batch
    /// itself until ``releaseInput()`` (by then most waits are over).
    @inline(__always)
    private func keepBytes(of flight: InFlight) {
        if readsInputBatch {
            borrowing.append(.passUnretained(flight.message))
        } else {
            flight.detach(locked: handlesReachPlugins)
        }
    }

    /// The batch of standard input the records taken so far read goes back
    /// to its reader, to be filled again: the messages that still wait copy
    /// their bytes now (a message the pool keeps is never freed, and one
    /// done since, or reading another batch, has nothing to copy or copies early).
    package func releaseInput() {
        while let message = borrowing.popFirst() {
            message._withUnsafeGuaranteedRef { $0.detach(locked: handlesReachPlugins) }
        }
    }

    /// An event or a rejected record: finished now unless records queue before it.
    private func arrive(_ waiting: Waiting) {
        if queueIsEmpty {
            finish(waiting)
        } else {
            queue.append(waiting)
        }
    }

    // MARK: Verdicts that come later

    /// Applies every `complete` posted so far, then finishes what became ready.
    private func takeCompletions() {
        dataStage.takeCompletions()
        drain()
    }

    /// Lets every message whose interceptor's turn ended on another thread
    /// go on: to the next interceptor, else into the ordered stream.
    private func takeEndings() {
        interceptors.takeEndings { enter($0, isCurrent: false) }
    }

    /// `takeCompletions` and `takeEndings`, for what was posted.
    package func takeCompletionsIfAny() {
        if interceptors.inbox.hasItems { takeEndings() }
        if let places, places.haveAnswers { takeAnswers() }
        if dataStage.inbox.hasItems { takeCompletions() }
    }

    /// Applies what the plugins elsewhere answered (data verdicts go to the
    /// data stage), then writes the report lines that were waiting for them.
    private func takeAnswers() {
        places?.takeAnswers()
        drain()
        writeDelivered()
    }

    /// Writes the report lines at the head of `delivered` whose calls ended.
    private func writeDelivered() {
        while !delivered.isEmpty {
            if let ticket = delivered[0].ticket, !ticket.hasEnded { return }
            let (flight, route, screens) = delivered.removeFirst().parts()
            if flight.message.isGivenUp {
                // A stop gave its UI call up: it ends as at a stop.
                stopped(flight, reason: flight.message.takeProblem() ?? "", route: route, screens: screens ?? [])
                continue
            }
            report(flight, route: route, screens: screens ?? [])
            keep(flight)
        }
    }

    /// Keeps a record that waited, its line written, for a message to come:
    /// as many as may wait at once (pending, queued, delivered), so that
    /// none is made again per message.
    private func keep(_ flight: consuming InFlight) {
        guard spare.count < 4 * max(64, maxPending) else { return }
        flight.recycle()
        if handlesReachPlugins {
            // A plugin in the host may still hold the old handle: it names nothing from now on.
            flight.message.retireHandle()
            flight.message.claimHandle()
        }
        spare.append(flight)
    }

    /// Waits for every UI call under way elsewhere, and writes the lines
    /// that waited for them.
    private func settle() {
        scheduler.settleUI()
        writeDelivered()
    }

    /// Fails every held message and counts every pending verdict past its
    /// deadline as failed, then finishes what became ready.
    private func expireDeadlines() {
        interceptors.expireDeadlines { enter($0, isCurrent: false) }
        dataStage.expireDeadlines()
        drain()
    }

    /// The stages' inboxes (verdicts that came later, interceptors' turns
    /// that ended on other threads), the answers from elsewhere, and the
    /// deadlines (held messages, pending verdicts, retained actions, the
    /// store's next write, a restart elsewhere).
    package func addWaits(to waits: inout PollSet) {
        waits.watch(dataStage.inbox.fd) { [unowned self] in takeCompletions() }
        waits.watch(interceptors.inbox.fd) { [unowned self] in takeEndings() }
        places?.addWaits(to: &waits) { [unowned self] in
            takeAnswers()
            takeCompletionsIfAny()
        }
        waits.wake(in: interceptors.millisecondsToNextDeadline())
        waits.wake(in: dataStage.millisecondsToNextDeadline())
        waits.wake(in: actions.millisecondsToNextExpiry())
        waits.wake(in: actions.store.millisecondsToWrite())
    }

    /// What a turn of the run loop ends with: the answers from elsewhere taken,
    /// and the deadlines that passed applied (held messages, pending
    /// verdicts, retained actions).
    package func endTurn() {
        takeAnswers()
        expireDeadlines()
        actions.expire(report: report)
    }

    // MARK: Actions and output

    /// Delivers the retained actions whose screens are visible at start
    /// (`--foreground`), after expiring the old ones.
    package func begin() {
        actions.deliverRetained(app: app, report: report)
    }

    /// Sends the calls posted elsewhere; writes out the buffered report lines,
    /// and the store's lines when due.
    package func flush() {
        places?.flush()
        report.flush()
        actions.store.writeIfDue()
    }

    /// Writes out every buffered line, the store's included.
    package func flushAll() {
        report.flush()
        actions.store.write()
    }

    // MARK: A stop

    /// Ends the messages still held by interceptors or waiting for a data
    /// verdict, without their UI stage, and finishes every other record: a
    /// record whose source can take it again (a spool file, a plugin) learns
    /// `stopped` and has no report line; a line of standard input, which
    /// cannot be read again, is reported failed. Their late `proceed`,
    /// `stop` and `complete` calls are ignored. A handler still in its call
    /// elsewhere is given up as one in the host would be: its call is ended
    /// (its worker killed), and its record ends as at a stop (``gaveUpAtStop``).
    package func stop() {
        if places?.endCallsUnderWay() == true { gaveUpAtStop = true }
        settle()
        for (item, by) in interceptors.abandonAll() {
            stopped(item, reason: "the host stopped while the interceptor \(by) held it")
        }
        dataStage.forgetPending()
        while let waiting = queue.popFirst() {
            if case .message(let flight) = waiting, !dataStage.isDone(flight) {
                stopped(flight, reason: "the host stopped before its data stage ended")
            } else {
                finish(waiting)
            }
        }
        settle()
    }

    /// A record the stop ends: one its source can take again learns
    /// `stopped`, a line of standard input is reported failed (with the
    /// route its UI stage had taken, if it began).
    private func stopped(_ flight: InFlight, reason: String, route taken: Route = .none, screens: [String] = []) {
        if let completion = flight.completion {
            completion(RecordOutcome(result: .stopped, problem: reason, line: []))
            return
        }
        metrics?.message(flight.message.sourceKind, .failed, route: taken)
        write(flight, result: .retry) {
            MessageLine(
                flight: flight, status: .failed, route: taken, names: reportNames, ui: route.called(on: taken, screens: screens), problem: reason)
        }
    }

    /// Finishes every record at the head of the queue whose turn has come.
    private func drain() {
        // The head is looked at in place, and moved out only once its turn came.
        while !queue.isEmpty {
            if case .message(let flight) = queue[0], !dataStage.isDone(flight) { return }
            finish(queue.removeFirst())
        }
    }

    // MARK: The end of a record's way

    /// Consumed: a message's record moves on to ``keep(_:)`` with no count taken.
    private func finish(_ waiting: consuming Waiting) {
        switch consume waiting {
        case .message(let flight):
            if finish(flight) { keep(flight) }
        case .event(let event, let source, let completion):
            // An event may call handlers in the host; none runs beside a UI call elsewhere.
            settle()
            apply(event, source: source, completion: completion)
        case .rejected(let error, let source, let completion):
            settle()
            reject(error, source: source, completion: completion)
        case .unrouted(let record, let source, let completion):
            settle()
            writeLine(of: record, source: source, completion: completion)
        }
    }

    /// Decides the message's status from its verdicts, runs its UI stage
    /// when they allow it, and writes its report line; false when the line
    /// waits for a UI call that ends later (or for one before it), and the
    /// record is kept in `delivered` until then.
    private func finish(_ flight: InFlight) -> Bool {
        underWay = flight
        defer { underWay = nil }
        var taken = Route.none
        var ticket: Ticket?
        let reachesUI = flight.interception.stop == nil && !flight.anyFailed && !flight.anySuppressed && !hasExpired(flight)
        if reachesUI {
            let visible = app.visible
            taken = route.plan(flight.message, screens: visible)
            ticket = route.deliver(taken, flight.message, screens: visible)
        }
        // The screens' names matter to the report only when a screen was called.
        let screens = taken == .background || taken == .none ? nil : app.visibleNames
        guard deliveredIsEmpty && ticket == nil else {
            delivered.append(Delivered(flight: flight, route: taken, screens: screens, ticket: ticket))
            return false
        }
        report(flight, route: taken, screens: screens ?? [])
        return true
    }

    /// Writes the report line of a message, its UI stage (if any) over:
    /// it took `taken`, `screens` visible.
    private func report(_ flight: InFlight, route taken: Route, screens: [String]) {
        let status: Status
        if let stop = flight.interception.stop {
            status = stop.effect == .suppressed ? .suppressed : .failed
        } else if flight.anyFailed {
            status = .failed
        } else if flight.anySuppressed {
            status = .suppressed
        } else if flight.expired {
            status = .expired
        } else if let problem = flight.message.takeProblem() {
            // A handler could not take it (an ffi argument that does not fit, a worker that crashed).
            flight.errors.append(problem)
            status = .failed
        } else {
            status = taken == .none ? .undelivered : .delivered
        }
        actions.store.note(flight.message, status: status)
        if let counted {
            HostMetrics.count(flight.message.sourceKind, status, route: taken, into: counted)
            if flight.interception.stop != nil { countStop(of: flight) }
        }
        write(flight, result: status.result) {
            MessageLine(
                flight: flight, status: status, route: taken, names: reportNames,
                ui: route.called(on: taken, screens: screens), problem: Self.problem(of: flight))
        }
    }

    /// Counts the stop of a message an interceptor stopped, for `--metrics`.
    @inline(never)
    private func countStop(of flight: InFlight) {
        if let stop = flight.interception.stop, let counters = interceptorStops[stop.by] {
            (stop.effect == .suppressed ? counters.suppressed : counters.failed).increment()
        }
    }

    /// Writes a message's report line; the interceptors that proceeded it
    /// get the line too, when any of them asks (`on_outcome`).
    @inline(__always)
    private func write(_ flight: InFlight, result: RecordResult, _ line: () -> MessageLine) {
        guard interceptors.wantsOutcomes && flight.interception.passed > 0 else {
            return report.write(result, completion: flight.completion, line)
        }
        report.write(result, completion: flight.completion, line) { [interceptors] text in
            interceptors.tellOutcome(of: flight, line: text)
        }
    }

    /// Why the message failed, for its report line; nil unless it did.
    static func problem(of flight: InFlight) -> String? {
        if let stop = flight.interception.stop {
            return stop.effect == .failed ? stop.reason ?? "\(stop.by) stopped it" : nil
        }
        return flight.errors.isEmpty ? nil : flight.errors.joined(separator: "; ")
    }


    /// Applies a host event to the app state, or routes an action, and
    /// writes its report line; the retained actions whose screen a
    /// foreground event shows follow it.
    private func apply(_ event: HostEvent, source: RecordSource, completion: RecordCompletion?) {
        let status: EventStatus
        do {
            switch event {
            case .action(let action):
                return actions.take(action, source: source, completion: completion, app: app, report: report)
            case .token(let token): status = app.store(token, source: source)
            case .foreground(let screens): status = try app.show(screens)
            case .background: status = try app.show([])
            }
        } catch {
            return reject(error, source: source, completion: completion)
        }
        metrics?.event(event, status)
        report.write(status.result, completion: completion) { EventLine(event: event, status: status, source: source) }
        if case .foreground = event { actions.deliverRetained(app: app, report: report) }
    }

    /// Reports a record that calls nobody: one the host gives up on without
    /// dispatching it, or one of an ntfy stream's own events.
    private func writeLine(of record: Unrouted, source: RecordSource, completion: RecordCompletion?) {
        switch record {
        case .failed(let reason):
            logger.error("\(source.place): \(reason)")
            metrics?.record(source.kindNumber, .failed)
            report.write(.retry, completion: completion) { FailedLine(reason: reason, source: source) }
        case .skipped(let event):
            metrics?.record(source.kindNumber, .skipped)
            report.write(Status.skipped.result, completion: completion) { SkippedLine(event: event, source: source) }
        }
    }

    /// Reports a record that is neither a valid message nor a valid host
    /// event, on standard error and in the report.
    private func reject(_ error: RecordError, source: RecordSource, completion: RecordCompletion?) {
        let place = error.offset.map { "\(source.place), byte \($0)" } ?? source.place
        logger.error("rejected \(place): \(error.reason)")
        metrics?.record(source.kindNumber, .rejected)
        report.write(.rejected, completion: completion) { RejectedLine(error: error, source: source) }
    }
}
