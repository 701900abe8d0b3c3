#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostMessage
import PushHostRecords
import PushHostSystem
import PushHostPlugins
import PushHostPort

/// The inside of a worker process (`pushhost worker`): it loads one plugin,
/// creates it with a `ph_host` like the host's (the message accessors read
/// the message the call carries; `complete` and `current_token` work as in
/// the host; `ph.intake/1` hands records to the host, ``WorkerIntake``; a
/// source's `start` and `stop` are calls; an interceptor's turn begins
/// with a call and its end, with the edits it made, goes back on its own,
/// ``WorkerChains``), then serves the calls that come over fd 3 until the
/// host asks for `destroy`, or is gone.
///
/// It ignores SIGINT and SIGTERM (a stop reaches it through the host, which
/// drains it first), and dies with the host (`PR_SET_PDEATHSIG`).
package final class WorkerLoop {
    /// The socket to the host, and the answer ring.
    static let channel: Int32 = 3
    static let ringFD: Int32 = 4

    private let instance: PluginInstance
    /// Its plugin's table and state, read once it is created: a call reads
    /// them without touching the instance (and its reference count).
    private let raw: ph_plugin
    private let state: UnsafeMutableRawPointer?
    private let intake: WorkerIntake
    /// What its plugin's metrics reached goes to the host from here.
    private let metrics: MetricsForwarder
    /// The source its plugin offers, if any.
    private var source: SourcePlugin?
    /// The interceptor its plugin offers, if any; its turns that end on its
    /// threads; the call and the link (kept alive) of each held turn, by chain.
    private var interceptor: InterceptorPlugin?
    private let turnEndings: Inbox<ChainLink.Posted>
    private var heldTurns: [UInt: (call: UInt64, link: ChainLink)] = [:]
    private let tokens: TokenStore
    private let logger: Logger
    /// Made after the inherited descriptors are closed, or they would close its pipe.
    private let completions: Inbox<Completion>
    /// The message the next call loads: held by this reference, which a
    /// call reads without a count (``MessagePool`` never frees a message).
    private var held = Unmanaged.passRetained(MessagePool.take())
    /// `--worker-memory` in MiB (0: none), and `/proc/self/statm` to check it after each call.
    private let memoryLimit: Int
    /// The CPU seconds a call may take (a plugin's `cpu` grant), or nil.
    private var cpuPerCall: Int?
    private let statm: Int32
    /// Messages whose `on_data` gave `PH_PENDING`, by handle: their call.
    private var pending: [UInt: (call: UInt64, message: Message)] = [:]
    private var out = ByteBuffer(capacity: 1 << 16)
    private let ring: WorkerRing
    /// Whether answers went into the ring since the host was last woken.
    private var unannounced = false
    private var lastFlush: UInt64 = 0
    /// Calls served since the clock was last read.
    private var sinceClock = 0

    /// A `complete` call, from the plugin's thread.
    /// Loads and creates the plugin at `file`; exits the process when it cannot.
    package init(
        file: String, stateDirectory: String, memoryLimit: Int,
        host: pid_t, sandbox: SandboxMode, namespaceFailure: String?, name: String?, logger: Logger
    ) {
        WorkerSpawn.standInIfFirst()
        let settings = WorkerSettings.read()
        // Keeping 0 to 6: its channels to the host (6: the bus broker's, when its plugin has one).
        WorkerSpawn.closeInherited(from: BusBrokerClient.fd + 1)
        // As the host decided from the same settings (``WorkerLaunch/bus``).
        if sandbox == .off || (try? SandboxGrants(settings: settings))?.bus == nil { close(BusBrokerClient.fd) }
        completions = Inbox()
        self.memoryLimit = memoryLimit
        statm = memoryLimit > 0 ? open("/proc/self/statm", O_RDONLY | O_CLOEXEC) : -1
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        WorkerSpawn.dieWithParent()
        if WorkerSpawn.hostGone(host) { exit(1) }
        self.logger = logger
        guard let ring = WorkerRing(fd: Self.ringFD) else { exit(1) }
        self.ring = ring
        let descriptor: PluginDescriptor
        var bus = BusAccess.direct
        do {
            // Read before the walls go up: the state directory is outside them.
            tokens = try TokenStore(directory: stateDirectory, logger: logger)
            if sandbox != .off, let name {
                let grants = Self.raiseWalls(
                    sandbox, file: file, name: name, settings: settings, stateDirectory: stateDirectory, namespaceFailure: namespaceFailure,
                    logger: logger)
                cpuPerCall = grants.cpu
                bus = grants.bus.map { .broker(granted: $0, BusBrokerClient()) } ?? .refused
                if let cpuPerCall {
                    // Its default (end the process), and not blocked, whatever the host inherited.
                    signal(SIGXCPU, SIG_DFL)
                    var set = sigset_t()
                    sigemptyset(&set)
                    sigaddset(&set, SIGXCPU)
                    pthread_sigmask(SIG_UNBLOCK, &set, nil)
                    Walls.allowCPU(cpuPerCall)
                }
            }
            // The host checked the manifest's libraries as it checks plugin files.
            descriptor = file.hasSuffix(FFIManifest.suffix) ? try FFIPlugin.load(file) { _ throws(PluginRefusal) in } : try PluginLibrary.open(file)
        } catch {
            logger.error("worker for \(file): \(error)")
            exit(1)
        }
        if sandbox != .off, let name, descriptor.name != name {
            logger.error("plugin \(name): its library now says it is \(descriptor.name), not what the host read; its state folder was granted by the old name")
            exit(WorkerLaunch.wallsFailed)
        }
        intake = WorkerIntake()
        turnEndings = Inbox()
        let forwarder = MetricsForwarder { [intake] in intake.send(frame: $0) }
        metrics = forwarder
        let context = PluginContext(
            name: descriptor.name, logger: Logger(label: descriptor.name), tokens: tokens, submissions: intake,
            metrics: PluginMetrics { forwarder.declared($0) }, chain: WorkerChains.table)
        context.bus = bus
        instance = PluginInstance(file: file, descriptor: descriptor, context: context, settings: PluginSettings(settings), index: 0)
        do {
            try instance.create()
        } catch {
            exit(WorkerLaunch.createFailed)
        }
        raw = descriptor.raw
        state = instance.state
        context.verdicts = completions
    }

    /// Puts up the walls (``Walls``) for the plugin `name` at `file`, with
    /// the grants in its `settings`, its state folder made first so that it
    /// can be granted; exits with ``WorkerLaunch/wallsFailed`` when a grant
    /// is malformed, or under `strict` when a wall cannot stand. Its grants.
    static func raiseWalls(
        _ mode: SandboxMode, file: String, name: String, settings: [String: String], stateDirectory: String, namespaceFailure: String?,
        logger: Logger
    ) -> SandboxGrants {
        let grants: SandboxGrants
        do {
            grants = try SandboxGrants(settings: settings)
        } catch {
            logger.error("plugin \(name): \(error)")
            exit(WorkerLaunch.wallsFailed)
        }
        let plugins = stateDirectory + "/plugins", folder = plugins + "/" + name
        let problem = PluginStateFolder.make(plugins) ?? PluginStateFolder.make(folder)
        // The handles' regions are the worker's, not its plugin's: reserved before a memory limit counts.
        _ = (Handles.messages, Handles.chains)
        if let problem { logger.error("plugin \(name): no state folder: \(problem)") }
        let standing = Walls.raise(file: file, stateFolder: problem == nil ? folder : nil, grants: grants, namespaceFailure: namespaceFailure)
        guard !standing.fell.isEmpty else {
            logger.debug("plugin \(name): its worker's walls stand: \(standing.stood.joined(separator: ", "))")
            return grants
        }
        let fell = standing.fell.joined(separator: "; ")
        if mode == .strict {
            logger.error("plugin \(name): walls that cannot stand under --sandbox strict: \(fell)")
            exit(WorkerLaunch.wallsFailed)
        }
        logger.warning("plugin \(name): its worker runs without these walls: \(fell); standing: \(standing.stood.joined(separator: ", "))")
        return grants
    }

    /// Says the plugin is created, then serves calls; never returns.
    package func run() -> Never {
        var offers: Int32 = 0
        do {
            source = try SourcePlugin(instance)
            interceptor = try InterceptorPlugin(instance, inbox: turnEndings)
        } catch {
            logger.error("\(error)")
            exit(WorkerLaunch.unusableExtension)
        }
        if source != nil { offers |= WorkerFrame.offersSource }
        if let interceptor { offers |= WorkerFrame.offersInterceptor | (interceptor.hasOnOutcome ? WorkerFrame.offersOutcome : 0) }
        WorkerFrame.append(.ready, number: offers, to: &out)
        send(out.bytes)
        out.removeAll()
        // While calls come, it only looks at its ring; with none, it asks
        // the host for a wake-up and sleeps until one, a `complete` or the
        // end of a held turn comes.
        while true {
            let served = ring.takeCalls { serve(batch: $0) }
            // The host waits for room for more calls.
            if served && ring.takeRoomRequest() { wake() }
            if completions.hasItems { takeCompletions() }
            if turnEndings.hasItems { takeTurnEndings() }
            flush()
            if served || ring.requestCallWake() { continue }
            var watched = [
                pollfd(fd: Self.channel, events: Int16(POLLIN), revents: 0),
                pollfd(fd: completions.fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: turnEndings.fd, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&watched, 3, -1) >= 0 || errno == EINTR else { end() }
            if watched[0].revents != 0 { takeWakes() }
        }
    }

    /// Serves the frames of a batch the host put in the call ring (whole
    /// frames: the host is trusted with them).
    private func serve(batch: UnsafeRawBufferPointer) {
        guard WorkerFrame.calls(in: batch, { serve($0) }) != nil else {
            logger.error("worker of plugin \(instance.name): a malformed frame from the host; ending")
            end()
        }
    }

    /// Reads the host's wake-ups; exits when the host is gone.
    private func takeWakes() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            let count = withUnsafeMutableBytes(of: &bytes) { recv(Self.channel, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return }
            if count == 0 { end() }
        }
    }

    /// Serves one frame.
    private func serve(_ frame: WorkerFrame.Frame) {
        switch frame.kind {
        case .call:
            guard let handler = PluginHandler(rawValue: Int32(frame.handler)) else { return }
            ring.noteBegun(frame.call)
            if let cpuPerCall { Walls.allowCPU(cpuPerCall) }
            call(handler, frame)
            if memoryLimit > 0, let resident = residentMiB(), resident > memoryLimit {
                WorkerFrame.append(.recycling, number: Int32(clamping: resident), to: &out)
                end()
            }
            // A long batch still wakes the host every 5 ms or so (the clock read every 16 calls).
            sinceClock &+= 1
            if sinceClock & 15 == 0, MonotonicClock.coarse() &- lastFlush > 5_000_000 { flush() }
        case .token:
            var fields = frame.fields
            if let token = fields.next(), let token { tokens.hold(String(decoding: token, as: UTF8.self)) }
        case .withdraw:
            withdrawTurn(frame.call)
        case .recordDone:
            intake.finish(frame)
        case .destroy:
            end()
        default:
            break
        }
    }

    /// Calls `handler` with what `frame` carries, and answers.
    private func call(_ handler: PluginHandler, _ frame: WorkerFrame.Frame) {
        var fields = frame.fields
        if handler == .start || handler == .stop {
            // The host asks only a plugin whose worker said it offers a source.
            var returned: Int32 = -1
            if let source {
                returned = handler == .start ? (source.start() ? 0 : -1) : 0
                if handler == .stop { source.stop() }
            }
            return answer(frame.call, ph_verdict(rawValue: UInt32(bitPattern: returned)), nil)
        }
        if handler == .onToken {
            guard let token = fields.next(), let token, let previous = fields.next() else {
                return answer(frame.call, PH_FAILED, "a token call without a token")
            }
            tokens.hold(String(decoding: token, as: UTF8.self))
            withCString(token) { token in withCString(previous) { previous in raw.on_token?(state, token!, previous) } }
            return answer(frame.call, PH_CONTINUE, nil)
        }
        guard let image = fields.next() else { return answer(frame.call, PH_FAILED, "a call without its message") }
        // Its message went away on the host (its data verdict expired): nothing to do.
        guard let image else { return answer(frame.call, PH_FAILED, nil) }
        if handler == .intercept {
            held._withUnsafeGuaranteedRef { $0.adopt(image: image.baseAddress!) }
            return beginTurn(frame.call)
        }
        held._withUnsafeGuaranteedRef { call(handler, frame.call, message: $0, image: image.baseAddress!, fields: &fields) }
    }

    /// Calls `handler` on the message in `image` (as the host read it,
    /// 8-aligned in the call ring), loaded into `message`, and answers the call `id`.
    private func call(
        _ handler: PluginHandler, _ id: UInt64, message: Message, image: UnsafeRawPointer, fields: inout WorkerFrame.Fields
    ) {
        message.adopt(image: image)
        let opaque = message.opaque
        var verdict = PH_CONTINUE
        switch handler {
        case .onData: verdict = raw.on_data?(state, opaque) ?? PH_CONTINUE
        case .onBackground: raw.on_background?(state, opaque)
        case .onTarget: raw.on_target?(state, opaque)
        case .onMismatch: raw.on_mismatch?(state, opaque)
        case .onAction:
            let action = fields.next() ?? nil
            let input = fields.next() ?? nil
            withCString(action) { action in withCString(input) { input in raw.on_action?(state, opaque, action!, input) } }
        case .onOutcome:
            if let line = fields.next() ?? nil { withCString(line) { interceptor?.tell(opaque, line: $0!) } }
        default: break
        }
        let problem = message.takeProblem()
        if handler == .onData && verdict == PH_PENDING {
            // Its plugin may read it later, from any thread: it is kept.
            message.detach(locked: true)
            pending[message.handleAddress] = (id, held.takeRetainedValue())
            held = .passRetained(MessagePool.take())
        } else {
            message.reset()
        }
        answer(id, verdict, problem)
    }

    /// Calls `intercept` with the message the call `call` loaded, answers
    /// `PH_PENDING` (the turn began), and sends how the turn ended, with
    /// its edits, at once, or later when the interceptor holds it.
    private func beginTurn(_ call: UInt64) {
        guard let interceptor else { return answer(call, PH_FAILED, "an intercept call to a plugin that offers no interceptor") }
        let item = InFlight(dataPlugins: 0, message: held.takeRetainedValue())
        held = .passRetained(MessagePool.take())
        let link = ChainLink.open(carrying: item, by: interceptor, spare: nil)
        let chain = link.opaque
        WorkerChains.begin(chain)
        interceptor.call(chain)
        answer(call, PH_PENDING, nil)
        guard let ending = link.returned() else {
            heldTurns[UInt(bitPattern: UnsafeRawPointer(chain))] = (call, link)
            return
        }
        ChainLink.recycle(link)
        sendEnding(ending, of: call, edits: WorkerChains.end(UInt(bitPattern: UnsafeRawPointer(chain))))
    }

    /// Drops the held turn the call `call` began, which the host no longer
    /// waits for: a later `proceed`, `stop` or `set` from the plugin is
    /// told the turn timed out, and changes nothing.
    private func withdrawTurn(_ call: UInt64) {
        guard let (chain, held) = heldTurns.first(where: { $0.value.call == call }) else { return }
        heldTurns[chain] = nil
        _ = held.link.abandon(.timedOut)
        _ = WorkerChains.end(chain)
    }

    /// Sends how the held turns that ended on the plugin's threads ended.
    private func takeTurnEndings() {
        for posted in turnEndings.take() {
            guard let (ending, _) = ChainLink.take(posted), let held = heldTurns.removeValue(forKey: posted.slot) else { continue }
            sendEnding(ending, of: held.call, edits: WorkerChains.end(posted.slot))
        }
        flush()
    }

    private func sendEnding(_ ending: ChainLink.Ending, of call: UInt64, edits: [ChainEdit]) {
        let (code, reason): (InterceptedEnding, String?) = switch ending {
        case .proceeded: (.proceeded, nil)
        case .stopped(.suppressed, let reason): (.suppressed, reason)
        case .stopped(.failed, let reason): (.failed, reason)
        case .broken(let problem): (.broken, problem)
        }
        WorkerFrame.append(.intercepted, call: call, number: code.rawValue, to: &out) { buffer in
            WorkerFrame.appendField(reason, to: &buffer)
            for edit in edits {
                WorkerFrame.appendField(edit.path, to: &buffer)
                WorkerFrame.appendField(edit.json, to: &buffer)
            }
        }
    }


    /// Resident memory in MiB, or nil when it cannot be read.
    private func residentMiB() -> Int? {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &bytes) { buffer -> Int? in
            let count = pread(statm, buffer.baseAddress, buffer.count, 0)
            guard count > 0 else { return nil }
            let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
            guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
            return (pages * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
        }
    }

    /// Answers a call at once, so that its answer outlives a crash in the
    /// next call: a frame in the ring unless it returned `PH_CONTINUE`
    /// without a problem, then the call as the last returned.
    private func answer(_ call: UInt64, _ verdict: ph_verdict, _ problem: String?) {
        if verdict != PH_CONTINUE || problem != nil {
            WorkerFrame.append(.returned, call: call, number: Int32(bitPattern: verdict.rawValue), to: &out) { buffer in
                guard var problem else { return }
                problem.withUTF8 { WorkerFrame.appendField(UnsafeRawBufferPointer($0), to: &buffer) }
            }
            ring.put(out.bytes) { wake() }
            out.removeAll()
        }
        ring.noteReturned(call)
        // A host asleep learns of it now: the next call may never return.
        if ring.takeWakeRequest() { wake() }
    }

    private func takeCompletions() {
        for completion in completions.take() {
            guard let (call, message) = pending.removeValue(forKey: completion.address) else {
                logger.warning("\(completion.plugin): complete for a message that is not waiting for it (a second call, or an unknown message); ignored")
                continue
            }
            WorkerFrame.append(.completed, call: call, number: Int32(bitPattern: completion.verdict.rawValue), to: &out)
            MessagePool.give(message)
        }
        flush()
    }

    /// Puts the answers so far in the ring, and wakes the host when it
    /// asked for a wake-up.
    private func flush() {
        lastFlush = MonotonicClock.coarse()
        if !out.isEmpty {
            ring.put(out.bytes) { wake() }
            out.removeAll()
            unannounced = true
        }
        // A host that is busy looks at the ring on its own; one about to sleep asked for a wake-up.
        if unannounced {
            if ring.takeWakeRequest() { wake() }
            unannounced = false
        }
    }

    /// Writes `bytes` to the host's socket; exits when the host is gone.
    private func send(_ bytes: UnsafeRawBufferPointer) {
        guard sendAll(Self.channel, bytes) else { exit(0) }
    }

    /// Tells the host its ring holds answers.
    private func wake() {
        withUnsafeBytes(of: WorkerProcess.wake) { send($0) }
    }

    /// Calls `destroy`, sends what is left (its metrics' last values too), and exits.
    private func end() -> Never {
        flush()
        instance.destroy()
        metrics.flush()
        exit(0)
    }
}
