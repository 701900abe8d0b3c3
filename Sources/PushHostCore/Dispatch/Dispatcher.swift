#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging

/// Takes records in arrival order and carries each through the data stage,
/// the UI stage and the report, keeping the rules of SPEC section 5.
///
/// Everything here runs on one thread (the dispatch thread), so no two
/// handlers of one plugin ever run at once. The only other threads are the
/// plugins' own, which reach the dispatcher through `complete`, posted to an
/// inbox that this thread drains.
///
/// Records that must wait (a message whose data stage is pending, and every
/// record behind it) queue up in arrival order; a record leaves the queue,
/// with its UI stage and its report line, only when all before it have.
/// The common case, nothing pending and nothing queued, takes no queue and
/// no allocation: one reused in-flight record serves every message.
package final class Dispatcher: CompletionSink, @unchecked Sendable {
    enum Entry {
        case message(InFlight)
        case event(HostEvent, MessageSource)
        case rejected(RecordError, MessageSource)
    }

    let plugins: PluginSet
    let tokens: TokenStore
    let report: ReportWriter?
    let logger: Logger
    let options: DispatchOptions
    let inbox = CompletionInbox()
    /// The plugins' handlers as plain values, for the hot path.
    let handlers: Handlers
    /// The screens the app shows, top first; none: the app is in the background.
    var visible: VisibleScreens

    private var reader: JSONReader
    private var current: InFlight
    private var queue: [Entry] = []
    private var head = 0
    /// Messages waiting for `complete`, by their `ph_message` address.
    private(set) var pending: [UInt: InFlight] = [:]
    /// Messages whose deadline passed, kept valid until their late `complete`.
    private var abandoned: [UInt: Message] = [:]
    /// The last messages that were answered through `complete`, kept alive
    /// so that their addresses are not reused by new messages: a second
    /// `complete` for one of them is recognized and ignored, never taken for
    /// another message's answer.
    private var answered: [UInt: Message] = [:]
    private var answeredOrder: [UInt] = []
    private var answeredNext = 0
    private static let answeredWindow = 4096
    private let timeout: UInt64
    private let targetKey: [UInt8]

    var rejectedCount = 0
    var failedCount = 0

    package init(plugins: PluginSet, tokens: TokenStore, report: ReportWriter?, options: DispatchOptions, logger: Logger) throws(SetupError) {
        self.plugins = plugins
        self.tokens = tokens
        self.report = report
        self.options = options
        self.logger = logger
        reader = JSONReader()
        timeout = UInt64(max(0, options.dataTimeout) * 1e9)
        targetKey = Array(options.targetKey.utf8)
        let screens = try (options.foreground ?? []).map { name throws(SetupError) in
            guard let screen = plugins.screens[name] else {
                throw SetupError("--foreground \(name): \(Self.unknownScreen(name, plugins))")
            }
            return screen
        }
        visible = VisibleScreens(screens)
        handlers = Handlers(plugins)
        current = InFlight(dataPlugins: plugins.data.count)
        for plugin in plugins.instances { plugin.context.completions = self }
    }

    deinit {
        handlers.deallocate()
        visible.deallocate()
    }

    /// Told when each record's report line is out: its source, its status,
    /// and what went wrong for a rejected or failed one.
    var recordFinished: ((MessageSource, _ status: String, _ problem: String?) -> Void)?

    var queueIsEmpty: Bool { head == queue.count }

    /// Whether nothing waits: no pending verdict, no queued record.
    var isIdle: Bool { pending.isEmpty && queueIsEmpty }

    /// Whether reading may go on: fewer than `--max-pending` messages wait
    /// for `complete`, and the records queued behind them stay bounded too
    /// (64 times as many), so a slow plugin never makes memory grow without end.
    var mayRead: Bool {
        pending.count < options.maxPending && queue.count - head < options.maxPending * 64
    }

    // MARK: Arrival

    /// Takes one record: a host event or a push message.
    package func submit(_ bytes: UnsafeRawBufferPointer, source: MessageSource) {
        do {
            submit(try reader.parse(bytes), source: source)
        } catch {
            submitInvalid(error, source: source)
        }
    }

    /// A record that is not valid JSON.
    func submitInvalid(_ error: JSONError, source: MessageSource) {
        arrive(.rejected(RecordError(offset: error.offset, reason: error.reason), source))
    }

    /// Takes one parsed record, a host event or a push message; its document
    /// need stay valid only until this returns.
    func submit(_ document: JSONDocument, source: MessageSource) {
        let root = document.root
        guard root.kind == .object else {
            return arrive(.rejected(RecordError(offset: 0, reason: "not a JSON object (each record is one object)"), source))
        }
        let members = RootMembers(root)
        if members.pushhost >= 0 {
            do {
                return arrive(.event(try HostEvent(kind: root.at(members.pushhost), record: root), source))
            } catch {
                return arrive(.rejected(error, source))
            }
        }
        let flight = current
        targetKey.withUnsafeBytes { key in
            flight.message.load(document, members: members, source: source, platform: options.platform, targetKey: key)
        }
        runDataStage(flight)
        if queueIsEmpty && flight.isDone(dataPlugins: handlers.data.count) {
            finish(flight)
            flight.recycle()
            return
        }
        // It must wait (for its own data stage or for those before it): it
        // keeps a copy of its bytes, and the next message gets a fresh record.
        flight.message.detach()
        current = InFlight(dataPlugins: handlers.data.count)
        queue.append(.message(flight))
        drain()
    }

    /// A line longer than `--max-bytes`.
    func submitTooLong(source: MessageSource) {
        arrive(.rejected(RecordError(offset: options.maxBytes, reason: "longer than --max-bytes \(options.maxBytes)"), source))
    }

    /// An event or a rejected record: handled now unless messages queue before it.
    private func arrive(_ entry: Entry) {
        if queueIsEmpty {
            finish(entry)
        } else {
            queue.append(entry)
        }
    }

    /// Finishes every record at the head of the queue whose turn has come.
    private func drain() {
        while head < queue.count {
            if case .message(let flight) = queue[head], !flight.isDone(dataPlugins: handlers.data.count) { return }
            let entry = queue[head]
            head += 1
            finish(entry)
        }
        queue.removeAll(keepingCapacity: true)
        head = 0
    }

    private func finish(_ entry: Entry) {
        switch entry {
        case .message(let flight): finish(flight)
        case .event(let event, let source): apply(event, source: source)
        case .rejected(let error, let source): reject(error, source: source)
        }
    }

    // MARK: Data stage

    /// Calls the data plugins in load order from where the message stands,
    /// until one answers pending or all have answered.
    private func runDataStage(_ flight: InFlight) {
        let data = handlers.data
        let message = flight.message.opaque
        while flight.next < data.count {
            let handler = data[flight.next]
            let verdict = handler.raw.on_data!(handler.state, message)
            if verdict == PH_PENDING {
                flight.isWaiting = true
                flight.deadline = Self.now() &+ timeout
                pending[flight.message.address] = flight
                return
            }
            record(verdict, for: flight)
        }
    }

    /// Notes the final answer of the data plugin the message stands at, and
    /// moves the message past it; a failure is explained by `reason`, or
    /// else as the plugin's own answer.
    private func record(_ verdict: ph_verdict, for flight: InFlight, because reason: String? = nil) {
        switch verdict {
        case PH_CONTINUE: flight.answer(.continue)
        case PH_SUPPRESS: flight.answer(.suppress)
        case PH_FAILED:
            flight.errors.append(reason ?? "\(plugins.data[flight.next].name) answered failed")
            flight.answer(.failed)
        default:
            flight.errors.append("\(plugins.data[flight.next].name) answered \(verdict.rawValue), which is not a final verdict (continue, suppress, failed)")
            flight.answer(.failed)
        }
    }

    // MARK: Completions and deadlines

    /// `CompletionSink`: called by `complete` on any thread.
    func complete(_ message: OpaquePointer, verdict: ph_verdict, from plugin: String) {
        inbox.post(.init(address: UInt(bitPattern: UnsafeRawPointer(message)), verdict: verdict, plugin: plugin))
    }

    /// Applies every `complete` posted so far, then finishes what became ready.
    func takeCompletions() {
        for completion in inbox.take() {
            guard let flight = pending[completion.address], plugins.data[flight.next].name == completion.plugin else {
                if abandoned.removeValue(forKey: completion.address) != nil {
                    logger.warning("\(completion.plugin): complete arrived after the --data-timeout deadline; ignored")
                } else {
                    logger.warning("\(completion.plugin): complete for a message that is not waiting for it (a second call, or an unknown message); ignored")
                }
                continue
            }
            pending[completion.address] = nil
            flight.isWaiting = false
            remember(flight.message)
            record(completion.verdict, for: flight)
            runDataStage(flight)
        }
        drain()
    }

    /// Keeps `message` among the recently answered, dropping the oldest.
    private func remember(_ message: Message) {
        let address = message.address
        guard answered[address] == nil else { return }
        if answeredOrder.count < Self.answeredWindow {
            answeredOrder.append(address)
        } else {
            answered[answeredOrder[answeredNext]] = nil
            answeredOrder[answeredNext] = address
            answeredNext = (answeredNext + 1) % Self.answeredWindow
        }
        answered[address] = message
    }

    /// `takeCompletions`, when any `complete` was posted.
    func takeCompletionsIfAny() {
        if inbox.hasItems { takeCompletions() }
    }

    /// Counts every pending verdict past its deadline as failed.
    func expireDeadlines() {
        let now = Self.now()
        let expired = pending.filter { $0.value.deadline <= now }
        guard !expired.isEmpty else { return }
        for (address, flight) in expired.sorted(by: { $0.value.deadline < $1.value.deadline }) {
            let plugin = plugins.data[flight.next]
            pending[address] = nil
            abandoned[address] = flight.message
            flight.isWaiting = false
            logger.warning("\(plugin.name): no complete for message \(flight.message.idString) within \(options.dataTimeout)s; counted as failed")
            record(PH_FAILED, for: flight, because: "\(plugin.name) did not complete within --data-timeout \(options.dataTimeout)s")
            runDataStage(flight)
        }
        drain()
    }

    /// Milliseconds until the nearest deadline, or -1 when nothing is pending.
    func millisecondsToNextDeadline() -> Int32 {
        guard let nearest = pending.values.lazy.map(\.deadline).min() else { return -1 }
        let now = Self.now()
        return nearest <= now ? 0 : Int32(min((nearest - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    static func unknownScreen(_ name: String, _ plugins: PluginSet) -> String {
        let known = plugins.screens.keys.sorted()
        return "no foreground plugin is named \"\(name)\"" + (known.isEmpty ? " (none is loaded)" : " (screens: \(known.joined(separator: ", ")))")
    }
}
