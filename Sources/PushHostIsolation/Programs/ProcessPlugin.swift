#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostJSON
import PushHostMessage
import PushHostPlugins
import PushHostRecords
import PushHostSystem

/// A process plugin, as the host calls it (``RemotePlugin``): a program
/// that takes each call as a JSON line and answers it as one
/// (docs/process-plugins.md). A call is written to the program and returns
/// at once: a data call answers `PH_PENDING` and its verdict comes with
/// the answer, any other call's end is its ticket's. The program may
/// answer in any order; at most ``window`` calls are under way in it, the
/// others wait in the host.
///
/// It keeps the guarantees of a worker (``Worker``): when the program dies
/// (or is killed after `--handler-timeout`, or for a line that is no answer
/// to a call under way), the host cannot tell which of the calls under way
/// it was in, as a program answers when it likes. A new program, started
/// after a backoff, gets those calls again one at a time: one that ends
/// it again is the one, and fails alone (`plugin NAME crashed in
/// on_background: SIGKILL`); past `--worker-crash-limit` the plugin is disabled.
package final class ProcessPlugin: RemotePlugin {
    enum Phase {
        case running
        /// Down; started again at this time (monotonic ns).
        case restarting(at: UInt64)
        case disabled
        /// Ended at shutdown.
        case stopped
    }

    /// One posted call.
    struct Call {
        let id: UInt64
        let handler: PluginHandler
        /// The message's handle, 0 for a token call.
        let address: UInt
        /// A data call's record.
        let flight: InFlight?
        /// Answered (or failed), while a call before it is not.
        var answered = false
    }

    /// The most calls under way in the program: enough that it reads and
    /// answers many at a time while the host writes more (as many as
    /// `--max-pending` lets wait, by default).
    static let window = 1024

    let name: String
    /// Its plugin's number in load order, once created.
    var plugin: Int32 = -1
    package let offers: RemoteOffers = []
    let launch: WorkerLaunch
    let workers: Workers
    let logger: Logger
    /// Its first program, started with the other plugins' before any is awaited.
    private var spawned: Result<ProgramProcess, SetupError>?
    var process: ProgramProcess? {
        didSet { live = process.map { Unmanaged.passUnretained($0) } }
    }
    /// `process` without a count: what the dispatch thread's calls use.
    @exclusivity(unchecked) private var live: Unmanaged<ProgramProcess>?
    var phase = Phase.running
    /// The calls posted, oldest first, until every one before them is answered too.
    var calls = Fifo<Call>()
    /// The action and input of `on_action`, the token and previous one of `on_token`, by call id.
    private var texts: [UInt64: (first: String?, second: String?)] = [:]
    private var nextID: UInt64 = 1
    /// The last call written to the program (they go in order), and how many written are not answered.
    var sentThrough: UInt64 = 0
    var unanswered = 0
    /// The calls up to this one were under way when a program ended: they
    /// go to the next one at a time, so that the call a program ends in is known.
    var replayThrough: UInt64 = 0
    /// Calls that could not be written (their message was gone): answered at the next take.
    private var skipped: [UInt64] = []
    /// What waits to be written to the program's standard input.
    var out = ByteBuffer(capacity: 1 << 16)
    private(set) package var answeredThrough: UInt64 = 0 {
        didSet { countUIUnderWay() }
    }
    private var lastUI: UInt64 = 0 {
        didSet { countUIUnderWay() }
    }
    private var countedAsBusy = false
    /// Whether the program's answers were found malformed: nothing more of them is taken.
    private var rejected = false
    /// Whether its answers are being taken (a take inside a take takes nothing).
    private var taking = false
    var crashes: CrashCount
    /// Its program, asked to end and not waited for yet.
    var stopping: ProgramProcess?

    /// Starts its first program at once; what that writes on its standard
    /// error is kept in `log` too when given (a dry run's listing).
    package init(name: String, launch: WorkerLaunch, workers: Workers, logger: Logger, log: CapturedLog? = nil) {
        self.name = name
        self.launch = launch
        self.workers = workers
        self.logger = logger
        crashes = CrashCount(limit: launch.crashLimit, window: launch.crashWindow)
        spawned = Self.spawn(launch, name: name, log: log)
    }

    private static func spawn(_ launch: WorkerLaunch, name: String, log: CapturedLog? = nil) -> Result<ProgramProcess, SetupError> {
        Result { () throws(SetupError) in try ProgramProcess(launch, plugin: name, log: log) }
    }

    // MARK: Starting

    /// Starts the program and waits for its first line.
    package func start() throws(PluginRefusal) {
        let process: ProgramProcess
        do {
            let first = spawned
            spawned = nil
            process = try (first ?? Self.spawn(launch, name: name)).get()
        } catch {
            throw .workerFailed(error.description)
        }
        switch process.awaitReady(timeout: launch.handlerTimeout) {
        case .ready:
            break
        case .silent:
            let status = Self.end(process, ended: true)
            let words = process.lastWords.all
            throw .workerFailed("its program ended before its first line (\(Worker.describe(status)))" + (words.isEmpty ? "" : ": " + words.joined(separator: " | ")))
        case .late:
            _ = Self.end(process)
            throw .workerFailed("its program did not write its first line within --handler-timeout \(launch.handlerTimeout)s (it was killed)")
        case .malformed(let problem):
            _ = Self.end(process)
            throw .workerFailed("its program \(problem)")
        }
        workers.metrics?.started(name, again: crashes.startedAt != 0)
        crashes.startedAt = MonotonicClock.now()
        let generation = ObjectIdentifier(process)
        process.startWatching(timeout: launch.handlerTimeout) { [inbox = workers.inbox] in
            inbox.post(.answersWaiting)
        } ended: { [inbox = workers.inbox, plugin = ObjectIdentifier(self)] status in
            inbox.post(.ended(worker: plugin, process: generation, status))
        }
        self.process = process
        rejected = false
        phase = .running
    }

    /// Kills a program whose watcher has not started, and waits for it: its
    /// wait status. One that `ended` on its own is given the time to say how.
    private static func end(_ process: ProgramProcess, ended: Bool = false) -> Int32 {
        process.reap(reported: ended)
    }

    /// Kills its first program, started and never awaited (its plugin set was refused).
    func abandon() {
        if case .success(let process)? = spawned { _ = Self.end(process) }
        spawned = nil
    }

    // MARK: Posting

    package func callData(_ flight: InFlight) -> ph_verdict {
        if case .disabled = phase {
            flight.message.notePlainProblem(disabledReason)
            return PH_FAILED
        }
        enqueue(.onData, address: flight.message.handleAddress, flight: flight)
        return PH_PENDING
    }

    package func deliver(_ handler: PluginHandler, _ message: Message) -> UInt64? {
        if case .disabled = phase {
            message.notePlainProblem(disabledReason)
            return nil
        }
        return enqueue(handler, address: message.handleAddress)
    }

    package func post(_ handler: PluginHandler, _ message: OpaquePointer?, _ first: String?, _ second: String?) -> UInt64? {
        if case .disabled = phase {
            if let message { Message.noteProblem(message, disabledReason) }
            return nil
        }
        return enqueue(handler, address: message.map { UInt(bitPattern: UnsafeRawPointer($0)) } ?? 0, first: first, second: second)
    }

    /// Adds a call to those posted, and writes it when the window has room; its id.
    @discardableResult
    private func enqueue(_ handler: PluginHandler, address: UInt, flight: InFlight? = nil, first: String? = nil, second: String? = nil) -> UInt64 {
        let id = nextID
        nextID += 1
        if first != nil || second != nil { texts[id] = (first, second) }
        if handler != .onData { lastUI = id }
        calls.append(Call(id: id, handler: handler, address: address, flight: flight))
        sendMore()
        return id
    }

    /// Writes the calls that wait, as far as the window lets.
    func sendMore() {
        guard case .running = phase, let live else { return }
        while unanswered < (sentThrough < replayThrough ? 1 : Self.window), sentThrough < nextID - 1 {
            sentThrough += 1
            let position = Int(sentThrough - calls[0].id)
            guard !calls[position].answered else { continue }
            if encode(id: sentThrough, handler: calls[position].handler, address: calls[position].address) {
                unanswered += 1
                live._withUnsafeGuaranteedRef { $0.notePosted() }
            } else {
                skipped.append(sentThrough)
            }
        }
        if out.count >= 1 << 16 { flush() }
    }

    /// Appends the line of `call` to what waits to be written; false when
    /// its message is gone (its data verdict expired: the call is not made).
    private func encode(id: UInt64, handler: PluginHandler, address: UInt) -> Bool {
        let start = out.count
        out.append(ascii: #"{"id":"#)
        out.appendDecimal(Int(id))
        out.append(ascii: #","call":""#)
        out.append(ascii: Self.callWord(handler))
        out.append(UInt8(ascii: "\""))
        if handler == .onToken || handler == .onAction {
            let (first, second) = texts[id] ?? (nil, nil)
            appendMember(handler == .onToken ? #","token":"# : #","action":"#, first)
            appendMember(handler == .onToken ? #","previous":"# : #","input":"#, second)
        }
        if address != 0 {
            out.append(ascii: #","message":"#)
            guard Message.appendCompactJSON(of: OpaquePointer(bitPattern: address)!, to: &out) else {
                out.truncate(to: start)
                return false
            }
        }
        out.append(ascii: "}\n")
        return true
    }

    /// Appends `,"KEY":VALUE` (`key` as `,"KEY":`) unless `value` is nil.
    private func appendMember(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        out.append(ascii: key)
        JSONWriter.appendString(value, to: &out)
    }

    /// The protocol's name of a call of `handler` (a process plugin has no other calls).
    static func callWord(_ handler: PluginHandler) -> StaticString {
        switch handler {
        case .onData: "data"
        case .onBackground: "background"
        case .onTarget: "target"
        case .onMismatch: "mismatch"
        case .onToken: "token"
        default: "action"
        }
    }

    /// The protocol's name of a call of `handler`, in a text.
    static func callName(_ handler: PluginHandler) -> String {
        "\(callWord(handler))"
    }

    /// Writes what waits, as far as the program's pipe takes it (the rest
    /// when the dispatch thread finds it writable).
    func flush() {
        guard let process, !out.isEmpty else { return }
        if case .stopped = phase { return }
        process.write(&out)
    }

    /// The descriptor to watch for room, while calls wait to be written.
    var waitingForRoom: Int32? {
        guard let process, !out.isEmpty, case .running = phase else { return nil }
        return process.calls
    }

    // What a process plugin does not offer: its descriptor declares no
    // extension, so none of these is called; each ends at once.
    package func intercept(_ chain: OpaquePointer) {
        workers.turns?.fail(turn: UInt(bitPattern: UnsafeRawPointer(chain)), reason: "plugin \(name) is a process plugin, which has no interceptor")
    }

    package func withdrawTurn(_ chain: OpaquePointer) {}

    package func outcome(_ message: OpaquePointer, line: UnsafePointer<CChar>) {}

    package func callSource(_ handler: PluginHandler) -> Int32 { -1 }

    // MARK: Calls under way

    var hasCallUnderWay: Bool { !calls.isEmpty }

    var hasUIUnderWay: Bool { lastUI > answeredThrough }

    /// Keeps the count of processes with a UI call under way.
    private func countUIUnderWay() {
        let busy = lastUI > answeredThrough
        guard busy != countedAsBusy else { return }
        countedAsBusy = busy
        workers.noteUIUnderWay(busy, by: self)
    }

    /// Kills the program when it has a call under way, as a stop's
    /// `--stop-timeout` ran out; true when it was killed so.
    func endCallUnderWay() -> Bool {
        guard unanswered > 0, let process else { return false }
        process.kill(for: .stopTimeout)
        return true
    }

    // MARK: What comes back

    /// Whether answers wait to be taken, read already: the dispatch thread
    /// does not sleep then.
    var hasAnswers: Bool {
        guard let process, !rejected else { return !skipped.isEmpty }
        return !skipped.isEmpty || process.unread.bytes.contains(UInt8(ascii: "\n"))
    }

    /// Whether answers may wait, in its pipe too: while calls are under way
    /// (a take then reads the pipe, one system call, without waiting). A
    /// program answers in bursts, as it reads its calls; after a look that
    /// found nothing the next ``looksSkipped`` are not made (the pipe is
    /// watched when the host waits).
    func mayHaveAnswers() -> Bool {
        if hasAnswers { return true }
        guard unanswered > 0 else { return false }
        guard looksToSkip == 0 else {
            looksToSkip -= 1
            return false
        }
        return true
    }

    /// Looks left out after one that found nothing.
    static let looksSkipped = 3
    private var looksToSkip = 0

    /// The descriptor its answers come on, while they are taken.
    var answerPipe: Int32? {
        guard let process, !process.hungUp, !rejected else { return nil }
        return process.answers
    }

    /// Reads what the program answered, and applies each answer.
    func takeAnswers(verdicts: Workers.VerdictSink) {
        guard !taking else { return }
        taking = true
        defer { taking = false }
        let before = answeredThrough
        while let id = skipped.popLast() { answer(id, verdict: PH_CONTINUE, problem: nil, verdicts: verdicts) }
        guard let process, !rejected else { return }
        if process.readAnswers() == nil { looksToSkip = Self.looksSkipped }
        var taken = 0
        var malformed: MalformedAnswer?
        // Nothing in the take reads or writes what the program wrote (a take inside it takes nothing).
        do {
            let bytes = process.unread.bytes
            while malformed == nil, taken < bytes.count, let found = memchr(bytes.baseAddress! + taken, 0x0A, bytes.count - taken) {
                let newline = UnsafeRawPointer(found) - bytes.baseAddress!
                let line = UnsafeRawBufferPointer(rebasing: bytes[taken..<newline])
                taken = newline + 1
                switch ProgramAnswers.read(line) {
                case .success(let answer): malformed = take(answer, verdicts: verdicts)
                case .failure(let problem): malformed = problem
                }
            }
        }
        process.unread.removeFirst(taken)
        if malformed == nil && process.unread.count > ProgramAnswers.lineLimit {
            malformed = MalformedAnswer("a line longer than \(ProgramAnswers.lineLimit) bytes")
        }
        if let malformed { reject(process, malformed) }
        if answeredThrough != before { process.noteReturned(answeredThrough &- before) }
        sendMore()
    }

    /// Applies one answer; what was wrong with it, when it answers no call under way.
    private func take(_ answer: ProgramAnswers.Answer, verdicts: Workers.VerdictSink) -> MalformedAnswer? {
        guard answer.id > answeredThrough, answer.id <= sentThrough, !calls[Int(answer.id - calls[0].id)].answered else {
            return MalformedAnswer(answer.id >= nextID || answer.id > sentThrough
                ? "an answer to call \(answer.id), which was never made" : "a second answer to call \(answer.id)")
        }
        let handler = calls[Int(answer.id - calls[0].id)].handler
        if answer.namedVerdict && handler != .onData {
            return MalformedAnswer("a verdict for call \(answer.id), a \(Self.callName(handler)) call (only a data call has one)")
        }
        unanswered -= 1
        self.answer(answer.id, verdict: answer.verdict, problem: answer.error, verdicts: verdicts)
        return nil
    }

    /// The call `id` ended with `verdict` (and `problem`, when it failed).
    func answer(_ id: UInt64, verdict: ph_verdict, problem: String?, verdicts: Workers.VerdictSink) {
        let position = Int(id - calls[0].id)
        calls[position].answered = true
        if !texts.isEmpty { texts[id] = nil }
        // Read in place: a copy of the call would count a reference to its record.
        let address = calls[position].address
        if calls[position].handler == .onData {
            verdicts(calls[position].flight!, address, verdict, plugin, problem)
        } else if let problem {
            if address == 0 { workers.noteProblem(problem) } else { Message.noteProblem(OpaquePointer(bitPattern: address)!, problem) }
        }
        var through = answeredThrough
        while !calls.isEmpty && calls[0].answered { through = calls.removeFirst().id }
        answeredThrough = through
    }

    private func reject(_ process: ProgramProcess, _ problem: MalformedAnswer) {
        rejected = true
        process.reject(problem)
    }
}
