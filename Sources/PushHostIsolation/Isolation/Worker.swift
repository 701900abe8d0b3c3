#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostIntake
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins

/// An isolated plugin, as the host calls it (``RemotePlugin``): its calls
/// are posted to its worker process (``WorkerProcess``) and return at once;
/// what the worker answers comes back through ``Workers/takeAnswers()`` on
/// the dispatch thread. A data call answers `PH_PENDING`, and its verdict
/// arrives with its record; any other call's end is its ticket's.
///
/// Calls are answered in the order they were posted, so the first one not
/// answered is the one under way. When the worker dies, that call fails
/// (`plugin NAME crashed in on_data: SIGSEGV`) if the worker began it (it
/// notes each call it begins in its ring), a call it had left pending
/// fails too, and the calls behind go to a new worker, started after a
/// backoff (0.1 s, doubling, at most 5 s). A plugin whose worker crashed
/// more than `--worker-crash-limit` times within `--worker-crash-window` is
/// disabled: its calls fail from then on, and the host goes on.
package final class Worker: RemotePlugin {
    enum Phase {
        case running
        /// Down; started again at this time (monotonic ns).
        case restarting(at: UInt64)
        /// Ending after a call that took it over `--worker-memory`; started again when it has.
        case recycling
        case disabled
        /// Destroyed at shutdown.
        case stopped
    }

    /// One posted call.
    struct Call {
        let id: UInt64
        let handler: PluginHandler
        /// The message's handle (an `intercept`'s: its chain), 0 for a token or source call.
        let address: UInt
        /// A data call's record.
        let flight: InFlight?
    }

    /// The two texts of the calls under way that have them, by call id: the
    /// action and input of `on_action`, the token and previous one of
    /// `on_token`, the report line of `on_outcome` (kept apart, so that a
    /// ``Call`` is cheap to copy).
    private var texts: [UInt64: (first: String?, second: String?)] = [:]

    let name: String
    /// Its plugin's number in load order, once created.
    var plugin: Int32 = -1
    private let launch: WorkerLaunch
    private let workers: Workers
    /// Where the records its plugin submits go, and its metrics.
    private let submissions: PluginSubmissions
    private let pluginMetrics: PluginMetrics
    /// The extensions its plugin offers, as its worker said when it was created.
    private(set) package var offers: RemoteOffers = []
    /// Its first process, started with the other plugins' before any is awaited.
    private var spawned: Result<WorkerProcess, SetupError>?
    /// Whether its source was started and not stopped: a new worker starts it again.
    private var sourceStarted = false
    /// What the last `start` or `stop` returned, -1 when it failed.
    private var sourceAnswer: Int32?
    private let logger: Logger
    private(set) var process: WorkerProcess? {
        didSet {
            ring = process.map { Unmanaged.passUnretained($0.ring) }
            live = process.map { Unmanaged.passUnretained($0) }
        }
    }
    /// Its process and its ring, which the process keeps, read without a
    /// reference count on every call and every look for answers.
    @exclusivity(unchecked) private var ring: Unmanaged<WorkerRing>?
    @exclusivity(unchecked) private var live: Unmanaged<WorkerProcess>?
    @exclusivity(unchecked) private(set) var phase = Phase.running
    @exclusivity(unchecked) private var out = ByteBuffer(capacity: 1 << 16)
    /// Calls put in its ring since its worker was last woken, or looked at.
    @exclusivity(unchecked) private var unannounced = 0
    /// The calls posted and not answered yet, oldest first.
    @exclusivity(unchecked) private var calls = Fifo<Call>()
    @exclusivity(unchecked) private var nextID: UInt64 = 1
    /// Data calls that returned `PH_PENDING`, by call id: their message's handle and record.
    @exclusivity(unchecked) private var pending: [UInt64: (address: UInt, flight: InFlight)] = [:]
    /// Interceptor turns whose `intercept` returned and which have not ended, by call id: their chain.
    private var turns: [UInt64: UInt] = [:]
    /// The last call answered (or failed), and the last UI call posted.
    @exclusivity(unchecked) private(set) package var answeredThrough: UInt64 = 0 {
        didSet { countUIUnderWay() }
    }
    @exclusivity(unchecked) private(set) var lastUI: UInt64 = 0 {
        didSet { countUIUnderWay() }
    }
    /// Whether ``Workers`` counts it among the workers with a UI call under way.
    @exclusivity(unchecked) private var countedAsBusy = false
    /// Whether this thread found its process's answers malformed: what
    /// the process sends after that is not taken.
    private var rejected = false
    /// Whether its answers are being taken (a take inside a take takes nothing).
    private var taking = false
    private var crashes: CrashCount
    /// Its process, asked to end and not waited for yet.
    private var stopping: WorkerProcess?

    package init(
        descriptor: PluginDescriptor, launch: WorkerLaunch, workers: Workers, submissions: PluginSubmissions, pluginMetrics: PluginMetrics,
        spawned: Result<WorkerProcess, SetupError>? = nil, logger: Logger
    ) {
        self.pluginMetrics = pluginMetrics
        self.spawned = spawned
        name = descriptor.name
        self.launch = launch
        self.workers = workers
        self.submissions = submissions
        self.logger = logger
        crashes = CrashCount(limit: launch.crashLimit, window: launch.crashWindow)
    }

    // MARK: Starting

    /// Starts the worker and waits until its plugin is created, noting the
    /// extensions the plugin offers (``offers``).
    package func start() throws(PluginRefusal) {
        let process: WorkerProcess
        do {
            let first = spawned
            spawned = nil
            process = try (first ?? Self.spawn(launch, plugin: name, submissions: submissions, metrics: pluginMetrics)).get()
        } catch {
            throw .workerFailed(error.description)
        }
        let offers: Int32
        switch process.awaitReady(timeout: launch.handlerTimeout) {
        case .ready(let offered):
            offers = offered
        case .silent:
            let status = Self.killAndWait(process, ended: true)
            let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
            if exit == WorkerLaunch.createFailed { throw .createFailed }
            if exit == WorkerLaunch.unusableExtension { throw .workerFailed("an extension table it offers is unusable (its worker said why above)") }
            if exit == WorkerLaunch.wallsFailed { throw .workerFailed("its worker's walls could not stand (its worker said why above)") }
            throw .workerFailed("its worker ended before the plugin was created (\(Self.describe(status)))")
        case .late:
            _ = Self.killAndWait(process)
            throw .hungCreating(timeout: launch.handlerTimeout)
        case .malformed(let problem):
            _ = Self.killAndWait(process)
            throw .workerFailed("its worker sent a malformed answer: \(problem)")
        }
        self.offers = Self.offers(offers)
        workers.metrics?.started(name, again: crashes.startedAt != 0)
        crashes.startedAt = MonotonicClock.now()
        let generation = ObjectIdentifier(process)
        process.startWatching(timeout: launch.handlerTimeout) { [inbox = workers.inbox] in
            inbox.post(.answersWaiting)
        } ended: { [inbox = workers.inbox, worker = ObjectIdentifier(self)] status in
            inbox.post(.ended(worker: worker, process: generation, status))
        }
        process.results.deliver = { [unowned self] record, result, line in
            recordDone(record, result: result, line: line, of: generation)
        }
        self.process = process
        rejected = false
        phase = .running
    }

    /// The extensions a worker's first frame says its plugin offers.
    private static func offers(_ flags: Int32) -> RemoteOffers {
        var offers: RemoteOffers = []
        if flags & WorkerFrame.offersInterceptor != 0 { offers.insert(.interceptor) }
        if flags & WorkerFrame.offersOutcome != 0 { offers.insert(.outcome) }
        if flags & WorkerFrame.offersSource != 0 { offers.insert(.source) }
        return offers
    }

    /// Kills its first process, started and never awaited (its plugin set was refused).
    func abandon() {
        if case .success(let process)? = spawned { _ = Self.killAndWait(process) }
        spawned = nil
    }

    /// Starts a worker process for `launch`, which serves the plugin named `plugin`.
    static func spawn(
        _ launch: WorkerLaunch, plugin: String, submissions: PluginSubmissions, metrics: PluginMetrics
    ) -> Result<WorkerProcess, SetupError> {
        Result { () throws(SetupError) in
            try WorkerProcess(
                executable: launch.executable, arguments: launch.arguments, walled: launch.walled, bus: launch.bus, settings: launch.settings,
                largestFrame: launch.largestFrame, plugin: plugin, submissions: submissions, metrics: metrics)
        }
    }

    /// Kills a worker whose reader has not started, and waits for it: its
    /// wait status. One that `ended` on its own is given the time to say
    /// how, and what it wrote is logged first.
    static func killAndWait(_ process: WorkerProcess, ended: Bool = false) -> Int32 {
        if ended { process.awaitReport(timeout: 1) }
        kill(process.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
        if ended { process.finishOutput(timeout: 1) }
        return process.status(waited: status)
    }

    // MARK: Posting

    package func callData(_ flight: InFlight) -> ph_verdict {
        if case .disabled = phase {
            flight.message.notePlainProblem(disabledReason)
            return PH_FAILED
        }
        enqueue(.onData, address: flight.message.handleAddress, flight: flight, message: .passUnretained(flight.message))
        if out.count >= 1 << 16 { flush() }
        return PH_PENDING
    }

    package func deliver(_ handler: PluginHandler, _ message: Message) -> UInt64? {
        if case .disabled = phase {
            message.notePlainProblem(disabledReason)
            return nil
        }
        let call = enqueue(handler, address: message.handleAddress, message: .passUnretained(message))
        if out.count >= 1 << 16 { flush() }
        return call
    }

    package func post(_ handler: PluginHandler, _ message: OpaquePointer?, _ first: String?, _ second: String?) -> UInt64? {
        if case .disabled = phase {
            if let message { Message.noteProblem(message, disabledReason) }
            return nil
        }
        let call = enqueue(handler, address: message.map { UInt(bitPattern: UnsafeRawPointer($0)) } ?? 0, first: first, second: second)
        if out.count >= 1 << 16 { flush() }
        return call
    }

    /// Whether calls of `handler` keep the host's order across workers (the
    /// UI calls, token, action and source calls), or go on at once (the
    /// stages before the UI stage, and `on_outcome`, which nothing awaits).
    private static func isOrdered(_ handler: PluginHandler) -> Bool {
        handler != .onData && handler != .intercept && handler != .onOutcome
    }

    /// `intercept`: posts the turn under `chain`, which the stage holds
    /// until the worker says how it ended (``WorkerAnswer/intercepted(call:ending:reason:edits:)``).
    package func intercept(_ chain: OpaquePointer) {
        let address = UInt(bitPattern: UnsafeRawPointer(chain))
        if case .disabled = phase { return workers.turns?.fail(turn: address, reason: disabledReason) ?? () }
        enqueue(.intercept, address: address)
        if out.count >= 1 << 16 { flush() }
    }

    /// The host no longer waits for the turn under `chain` (its
    /// `--data-timeout` deadline passed): the worker drops it, so that it keeps
    /// nothing for a plugin that never ends it, and a late end changes nothing there.
    package func withdrawTurn(_ chain: OpaquePointer) {
        let address = UInt(bitPattern: UnsafeRawPointer(chain))
        guard let (call, _) = turns.first(where: { $0.value == address }) else { return }
        turns[call] = nil
        guard case .running = phase, process != nil else { return }
        WorkerFrame.append(.withdraw, call: call, to: &out, padded: true)
    }

    /// `on_outcome`: posts the report line of a message the interceptor proceeded.
    package func outcome(_ message: OpaquePointer, line: UnsafePointer<CChar>) {
        if case .disabled = phase { return }
        enqueue(.onOutcome, address: UInt(bitPattern: UnsafeRawPointer(message)), first: String(cString: line))
        if out.count >= 1 << 16 { flush() }
    }

    /// Adds a call to those under way, and encodes it for a running worker; its id.
    @discardableResult
    private func enqueue(
        _ handler: PluginHandler, address: UInt = 0, flight: InFlight? = nil, message: Unmanaged<Message>? = nil, first: String? = nil,
        second: String? = nil
    ) -> UInt64 {
        let call = Call(id: nextID, handler: handler, address: address, flight: flight)
        if first != nil || second != nil { texts[call.id] = (first, second) }
        nextID += 1
        if Self.isOrdered(handler) { lastUI = call.id }
        if case .running = phase, let live {
            encode(call, first, second, message: message)
            live._withUnsafeGuaranteedRef { $0.notePosted() }
        }
        // Its last use: the queue takes it over, with no count more.
        calls.append(consume call)
        return nextID - 1
    }

    /// Calls its source's `start` or `stop` in the worker and waits for
    /// it; what that returned (-1 when it crashed, or the plugin is disabled).
    package func callSource(_ handler: PluginHandler) -> Int32 {
        if handler == .stop { sourceStarted = false }
        sourceAnswer = nil
        workers.waitForUICalls(except: self)
        _ = post(handler, nil, nil, nil)
        workers.settle(self)
        if handler == .start && sourceAnswer == 0 { sourceStarted = true }
        return sourceAnswer ?? -1
    }

    /// Writes the frame of `call` straight into its call ring, or after what
    /// waits for room there: with a message, its image first (which the
    /// worker reads in place, 8-aligned 24 bytes into the frame, its record's
    /// source in it), or NULL when the message is gone (its data verdict
    /// expired: the worker skips the call); then an action's, a token's or
    /// an outcome's two texts. The message is found from the call's handle,
    /// unless it is at hand (`message`: a call posted now, not sent again).
    private func encode(_ call: Call, _ first: String?, _ second: String?, message: Unmanaged<Message>? = nil) {
        let hasTexts = call.handler == .onAction || call.handler == .onToken || call.handler == .onOutcome
        var image: Message.Image?
        var size = WorkerFrame.headerSize
        if call.address != 0 {
            if let message {
                image = message._withUnsafeGuaranteedRef { $0.image(handle: call.address) }
            } else {
                let message = call.handler == .intercept
                    ? workers.turns?.message(ofTurn: call.address) ?? OpaquePointer(Handles.none) : OpaquePointer(bitPattern: call.address)!
                image = Message.image(of: message)
            }
            size += 4 + (image?.size ?? 0)
        }
        if hasTexts && (image != nil || call.address == 0) { size += FrameCursor.size(ofField: first) + FrameCursor.size(ofField: second) }
        size = (size + 7) & ~7
        let (start, inRing) = place(size)
        var cursor = FrameCursor(at: start)
        cursor.writeHeader(.call, size: size, handler: UInt8(call.handler.rawValue), call: call.id)
        if let image {
            cursor.write(UInt32(image.size))
            image.write(to: cursor.at)
            cursor.skip(image.size)
        } else if call.address != 0 {
            cursor.write(UInt32.max)
        }
        if hasTexts && (image != nil || call.address == 0) {
            cursor.write(field: first)
            cursor.write(field: second)
        }
        cursor.pad(to: start + size)
        guard inRing else { return }
        ring?._withUnsafeGuaranteedRef { $0.commitCall(size) }
        unannounced &+= 1
        if unannounced >= Self.wakeAfter {
            unannounced = 0
            live?._withUnsafeGuaranteedRef { $0.wakeIfAsleep() }
        }
    }

    /// How many calls go into its ring before a worker that sleeps is woken
    /// for them (a flush wakes it for fewer): it begins while the host
    /// goes on, with one wake-up for that many calls.
    private static let wakeAfter = 256

    /// Where a frame of `size` bytes goes: in place in the call ring when
    /// nothing waits for room there and it fits (true), else after what
    /// waits (``flush()`` sends it).
    private func place(_ size: Int) -> (UnsafeMutableRawPointer, Bool) {
        if out.isEmpty, let ring {
            switch ring._withUnsafeGuaranteedRef({ ring in Result { () throws(MalformedAnswer) in try ring.placeCall(size) } }) {
            case .success(let place?): return (place, true)
            case .success(nil): break
            // Its ring says what no worker says: it is ended, and its calls go to the next.
            case .failure(let error): process?.reject(error)
            }
        }
        return (out.extend(by: size), false)
    }

    /// The record numbered `record` that the plugin in the worker process
    /// `generation` submitted has its result: its `done` is called there,
    /// after the calls posted before (a source's `stop` comes after it).
    private func recordDone(_ record: UInt64, result: Int32, line: UnsafeRawBufferPointer, of generation: ObjectIdentifier) {
        guard case .running = phase, let process, ObjectIdentifier(process) == generation else { return }
        WorkerFrame.append(.recordDone, call: record, number: result, to: &out, padded: true) { WorkerFrame.appendField(line, to: &$0) }
        if out.count >= 1 << 16 { flush() }
    }

    /// Tells the worker the current token changed.
    func tokenChanged(to token: String) {
        guard case .running = phase else { return }
        WorkerFrame.append(.token, to: &out, padded: true) { WorkerFrame.appendField(token, to: &$0) }
    }

    /// Sends what was posted, as far as its call ring has room (the rest
    /// waits for the next flush: the worker wakes the host when it made room).
    func flush() {
        guard let process else { return }
        if case .stopped = phase { return }
        unannounced = 0
        process.send(&out)
    }

    /// Whether a call is still under way (a pending verdict is not a call).
    var hasCallUnderWay: Bool { !calls.isEmpty }

    /// Kills the worker when it began a call that has not returned, as a
    /// stop's `--stop-timeout` ran out: the call is given up
    /// (``ended(_:verdicts:)``), and the stop does not wait for
    /// `--handler-timeout`. Calls it has not begun go to the next worker.
    /// True when it was killed so.
    func endCallUnderWay() -> Bool {
        guard !calls.isEmpty, let process, calls[0].id <= process.ring.lastBegun else { return false }
        process.kill(for: .stopTimeout)
        return true
    }

    /// Whether a UI call is still under way.
    var hasUIUnderWay: Bool { lastUI > answeredThrough }

    /// Keeps the count of workers with a UI call under way, which the
    /// dispatch thread asks for before every UI call, without a look at each.
    private func countUIUnderWay() {
        let busy = lastUI > answeredThrough
        guard busy != countedAsBusy else { return }
        countedAsBusy = busy
        workers.noteUIUnderWay(busy, by: self)
    }

    // MARK: What comes back

    /// Takes the answers its worker put in its ring since the last time,
    /// and applies them in order.
    func takeAnswers(verdicts: Workers.VerdictSink) {
        guard let process, !rejected, !taking else { return }
        taking = true
        defer { taking = false }
        let ring = process.ring
        // First: the frames it put before it stored this are all in the take.
        let through = ring.returnedThrough
        // Calls' ids run on, and only what returned moves this in a take: it counts them.
        let before = answeredThrough
        var malformed: MalformedAnswer?
        do throws(MalformedAnswer) {
            _ = try ring.take { batch in
                malformed = WorkerAnswer.read(batch) { answer in take(answer, from: process, verdicts: verdicts) }
            }
        } catch {
            malformed = error
        }
        // Returns it stored before the take count, as the frames before a
        // malformed one do. One that goes back is no worker's (and would
        // keep its watcher waiting for the host).
        let taken = ring.returnsTakenThrough
        if through >= taken && through < nextID {
            returnQuietly(through: through, verdicts: verdicts)
            ring.tookReturns(through: through)
        } else if malformed == nil && !rejected {
            malformed = MalformedAnswer(
                through < taken
                    ? "a last returned call \(through), before call \(taken), which it said it returned from"
                    : "a return from call \(through), which was never made")
        }
        if answeredThrough != before { process.noteReturned(answeredThrough &- before) }
        if let malformed, !rejected { reject(process, malformed.description) }
    }

    /// The calls up to `id` (one that was made) returned `PH_CONTINUE`
    /// without a problem, except those whose frames were taken: the worker
    /// says so by the last call it returned from (``WorkerRing/returnedThrough``),
    /// or by a frame for a later call (it serves them in order).
    private func returnQuietly(through id: UInt64, verdicts: Workers.VerdictSink) {
        while !calls.isEmpty && calls[0].id <= id {
            returned(calls.removeFirst(), verdict: PH_CONTINUE, problem: nil, verdicts: verdicts)
        }
    }

    /// Reads the wake-ups on its socket (the dispatch thread was woken). A
    /// stray byte ends the worker; the answers its ring holds still count,
    /// as the socket has no order with them.
    func takeWakes() {
        guard let process, !process.hungUp else { return }
        if case .stray(let byte) = process.takeWakes() {
            process.reject(MalformedAnswer("the byte \(byte) on its socket, where only wake-ups (\(WorkerProcess.wake)) go"))
        }
    }

    /// Its socket, while the dispatch thread waits for its wake-ups.
    var wakeSocket: Int32? {
        guard let process, !process.hungUp, !rejected else { return nil }
        return process.socket
    }

    /// Asks its worker to wake the host at its next answers (the host is
    /// about to sleep); true when answers came already.
    func requestWake() -> Bool {
        guard let process, !rejected else { return false }
        return process.ring.requestWake()
    }

    /// Whether its worker put answers in its ring that are not taken yet.
    var hasAnswers: Bool {
        guard let ring, !rejected else { return false }
        return ring._withUnsafeGuaranteedRef { $0.hasAnswers }
    }

    /// Applies one answer: a returned call, a completed verdict, an
    /// interceptor's turn that ended. An answer no worker gives (to a call
    /// that is not under way, a verdict for a call not waiting for one)
    /// ends the worker as malformed: false, and nothing after it is taken.
    private func take(_ answer: WorkerAnswer, from process: WorkerProcess, verdicts: Workers.VerdictSink) -> Bool {
        switch answer {
        case .returned(let id, let verdict, let problem):
            guard id < nextID else {
                reject(process, "an answer to call \(id), which was never made")
                return false
            }
            guard !calls.isEmpty else {
                reject(process, "an answer to call \(id), where no call is under way")
                return false
            }
            guard calls[0].id <= id else {
                reject(process, "an answer to call \(id), where call \(calls[0].id) is under way")
                return false
            }
            // The calls before it returned, quietly (their ids run on: it is the first after).
            returnQuietly(through: id - 1, verdicts: verdicts)
            returned(calls.removeFirst(), verdict: verdict, problem: problem, verdicts: verdicts)
        case .completed(let id, let verdict):
            guard let (address, flight) = pending.removeValue(forKey: id) else {
                reject(process, "a verdict for call \(id), which is not waiting for one")
                return false
            }
            verdicts(flight, address, verdict, plugin, nil)
        case .intercepted(let id, let ending, let reason, let edits):
            guard let chain = turns.removeValue(forKey: id) else {
                reject(process, "the end of the interceptor turn of call \(id), which has no turn under way")
                return false
            }
            workers.turns?.end(turn: chain, ending, reason: reason, edits: edits)
        case .recycling(let mebibytes):
            guard launch.memoryLimit > 0 else {
                reject(process, "a recycling frame, with no --worker-memory to be over")
                return false
            }
            logger.notice("plugin \(name): its worker uses \(mebibytes) MiB, over --worker-memory \(launch.memoryLimit) MiB; restarting it (the calls after go to the next one)")
            workers.metrics?.overMemory(name)
            phase = .recycling
        }
        return true
    }

    /// Applies what the call `call`, the oldest, returned.
    private func returned(_ call: Call, verdict: ph_verdict, problem: String?, verdicts: Workers.VerdictSink) {
        answeredThrough = call.id
        if !texts.isEmpty { texts[call.id] = nil }
        if call.handler == .onData {
            if verdict == PH_PENDING {
                pending[call.id] = (call.address, call.flight!)
            } else {
                verdicts(call.flight!, call.address, verdict, plugin, problem)
            }
        } else if call.handler == .start || call.handler == .stop {
            tookSource(call.handler, answer: Int32(bitPattern: verdict.rawValue), problem: problem)
        } else if call.handler == .intercept {
            // PH_PENDING: the turn goes on, in the worker; anything else: it could not begin there.
            guard verdict == PH_PENDING else {
                return workers.turns?.fail(turn: call.address, reason: problem ?? "plugin \(name) could not read the message in its worker") ?? ()
            }
            turns[call.id] = call.address
        } else if let problem, call.address != 0 {
            Message.noteProblem(OpaquePointer(bitPattern: call.address)!, problem)
        }
    }

    /// What its source's `start` or `stop` returned; a `start` that fails in
    /// a worker started again (after a crash) is logged here, as nobody waits for it.
    private func tookSource(_ handler: PluginHandler, answer: Int32, problem: String?) {
        sourceAnswer = answer
        if handler == .start && answer != 0 && sourceStarted {
            logger.error("plugin \(name): its source did not start again in its new worker (start returned \(answer))\(problem.map { ": " + $0 } ?? "")")
        }
    }

    private func reject(_ process: WorkerProcess, _ problem: String) {
        rejected = true
        process.reject(MalformedAnswer(problem))
    }

    /// The oldest call is answered (or failed).
    private func advance() {
        answeredThrough = calls.removeFirst().id
        if !texts.isEmpty { texts[answeredThrough] = nil }
    }

    /// The worker ended with wait `status`: fails the call under way and
    /// what it left pending, then restarts it after a backoff, or disables
    /// the plugin, or (at shutdown, or after a recycle) takes note.
    func ended(_ status: Int32, verdicts: Workers.VerdictSink) {
        let killedFor = process?.killedFor
        // What it did, when it sent something malformed (it was killed for that).
        let malformed = process?.rejection.map { "sent a malformed answer: \($0)" }
        // A call it never began (it died first) goes to the next worker, unfailed.
        let begun = process?.ring.lastBegun ?? 0
        process = nil
        if case .stopped = phase { return }
        let exitedCleanly = (status & 0x7f) == 0 && (status >> 8) & 0xff == 0
        if case .recycling = phase, exitedCleanly, malformed == nil {
            return restart(verdicts: verdicts)
        }
        let how = Self.describe(status)
        workers.metrics?.crashed(name, signal: (status & 0x7f) != 0 ? CrashJournal.Cause.signalName(status & 0x7f) : "exit")
        var underWay: String?
        if !calls.isEmpty, calls[0].id <= begun {
            let call = calls[0]
            underWay = call.handler.name
            let handler = call.handler.name
            let reason: String =
                switch (malformed, killedFor) {
                case (let malformed?, _): "plugin \(name) \(malformed)"
                case (nil, .handlerTimeout?):
                    "plugin \(name) did not return from \(handler) within --handler-timeout \(launch.handlerTimeout)s (its worker was killed)"
                case (nil, .stopTimeout?):
                    "plugin \(name) was still in \(handler) when --stop-timeout \(launch.stopTimeout)s ran out (its worker was killed)"
                case (nil, nil) where (status & 0x7f) != 0: "plugin \(name) crashed in \(handler): \(how)"
                case (nil, nil): "plugin \(name)'s worker exited in \(handler) (\(how))"
                }
            if killedFor == .stopTimeout && malformed == nil, call.address != 0, Self.isOrdered(call.handler) {
                // Given up at the stop, as a handler in the host would be: its record ends as at a stop.
                Message.noteGivenUp(OpaquePointer(bitPattern: call.address)!, reason)
            } else {
                fail(call, reason, verdicts: verdicts)
            }
            advance()
        }
        let end = malformed == nil ? how : "it sent a malformed answer"
        for (_, (address, flight)) in pending {
            verdicts(flight, address, PH_FAILED, plugin, "plugin \(name)'s worker ended (\(end)) before it completed the message")
        }
        pending.removeAll()
        for (_, chain) in turns {
            workers.turns?.fail(turn: chain, reason: "plugin \(name)'s worker ended (\(end)) before it proceeded or stopped the message")
        }
        turns.removeAll()
        out.removeAll()
        let place = underWay.map { "in \($0)" } ?? "between calls"
        noteCrash(launch.ending(malformed: malformed, killedFor: killedFor, place: place, how: how), verdicts: verdicts)
    }

    /// Counts a crash of the worker (`what` it did), then starts it again
    /// after a backoff, or disables the plugin past `--worker-crash-limit`,
    /// failing the calls that wait.
    private func noteCrash(_ what: String, verdicts: Workers.VerdictSink) {
        let now = MonotonicClock.now()
        guard let backoff = crashes.count(at: now) else {
            logger.error("plugin \(name) disabled: its worker crashed \(crashes.recent) times within \(launch.crashWindow)s (more than --worker-crash-limit \(launch.crashLimit)); the host goes on without it")
            phase = .disabled
            workers.metrics?.disabled(name, true)
            while !calls.isEmpty {
                let call = calls[0]
                fail(call, disabledReason, verdicts: verdicts)
                advance()
            }
            return
        }
        logger.error("plugin \(name) \(what); restarting its worker in \(backoff)s (crash \(crashes.recent) of --worker-crash-limit \(launch.crashLimit) within \(launch.crashWindow)s)")
        phase = .restarting(at: now &+ UInt64(backoff * 1e9))
    }

    /// Why the calls of a disabled plugin fail.
    private var disabledReason: String {
        "plugin \(name) is disabled (its worker crashed more than --worker-crash-limit \(launch.crashLimit) times within \(launch.crashWindow)s)"
    }

    private func fail(_ call: Call, _ reason: String, verdicts: Workers.VerdictSink) {
        // A source's call: -1 (the crash itself is logged).
        if call.handler == .start || call.handler == .stop { return tookSource(call.handler, answer: -1, problem: reason) }
        if call.handler == .intercept { return workers.turns?.fail(turn: call.address, reason: reason) ?? () }
        // The crash is logged; the report line it was for is written.
        if call.handler == .onOutcome { return }
        // A token call: its event learns why (the crash itself is logged).
        guard call.address != 0 else { return workers.noteProblem(reason) }
        if call.handler == .onData {
            verdicts(call.flight!, call.address, PH_FAILED, plugin, reason)
        } else {
            Message.noteProblem(OpaquePointer(bitPattern: call.address)!, reason)
        }
    }

    /// Whether it waits for its backoff to end, to start again.
    var isRestarting: Bool {
        if case .restarting = phase { return true }
        return false
    }

    /// Starts the worker again when its backoff is over, and sends it the
    /// calls that were waiting.
    func restartIfDue(now: UInt64, verdicts: Workers.VerdictSink) {
        guard case .restarting(let at) = phase, at <= now else { return }
        restart(verdicts: verdicts)
    }

    private func restart(verdicts: Workers.VerdictSink) {
        do {
            try start()
        } catch {
            // As a crash: a plugin that can never start again is disabled, and its calls fail.
            return noteCrash("could not start its worker again: \(error)", verdicts: verdicts)
        }
        for position in calls.indices {
            let call = calls[position]
            let (first, second) = texts[call.id] ?? (nil, nil)
            encode(call, first, second)
            process?.notePosted()
        }
        // Its source produces again: what it had submitted and not seen done for comes again, at most once more.
        if sourceStarted && !calls.indices.contains(where: { calls[$0].handler == .start }) { enqueue(.start) }
        flush()
    }

    /// When the backoff ends (monotonic ns), or nil.
    var restartTime: UInt64? {
        if case .restarting(let at) = phase { return at }
        return nil
    }

    // MARK: Shutdown

    /// `--stop-timeout`.
    package var stopTimeout: Double { launch.stopTimeout }

    /// Asks the worker to destroy its plugin and end (one recycling does of
    /// its own accord), without waiting, once. The host's stop asks every
    /// worker first, then waits for all of them against one deadline
    /// (``finishStop(by:)``); a worker recycling is waited for alike, so
    /// that the host's end (its parent-death signal) never cuts its destroy short.
    package func beginStop() {
        let recycling: Bool
        switch phase {
        case .running: recycling = false
        case .recycling: recycling = true
        default: return
        }
        phase = .stopped
        guard let process else { return }
        stopping = process
        // Sent as if it still ran (flush sends to a running worker only).
        if !recycling {
            WorkerFrame.append(.destroy, to: &out, padded: true)
            process.send(&out)
        }
    }

    /// Waits for the worker asked to stop to end until `deadline`
    /// (monotonic ns), then kills it, whatever its ring or socket claims.
    package func finishStop(by deadline: UInt64) -> Bool {
        guard let process = stopping else { return false }
        stopping = nil
        guard process.end(by: deadline) else { return false }
        logger.error("plugin \(name): its worker did not end by the stop's deadline (--stop-timeout \(launch.stopTimeout)s) after destroy; killed")
        return true
    }

    /// `SIGSEGV`, or `exit status 3`.
    static func describe(_ status: Int32) -> String {
        (status & 0x7f) != 0 ? CrashJournal.Cause.signalName(status & 0x7f) : "exit status \((status >> 8) & 0xff)"
    }
}
