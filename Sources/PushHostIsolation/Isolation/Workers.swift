#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostPlugins
import PushHostPort
import PushHostSystem

/// How the host starts a worker, and the limits it keeps it to.
package struct WorkerLaunch {
    /// The exit status of a worker whose plugin's `create` failed.
    static let createFailed: Int32 = 3
    /// The exit status of a worker whose plugin offers a `ph.source/1` or `ph.interceptor/1` table it cannot use.
    static let unusableExtension: Int32 = 4
    /// The exit status of a worker whose walls could not stand (`--sandbox`), or whose grants are malformed.
    static let wallsFailed: Int32 = 5

    /// This binary, which the worker runs as `pushhost worker ...`.
    package let executable: String
    package let arguments: [String]
    /// Behind walls (`--sandbox` on or strict): started in namespaces of its own (``WorkerSpawn``).
    package let walled: Bool
    /// The bus its plugin's grants name, when walled: the host connects to it for the worker (``BusBroker``).
    package let bus: String?
    /// Its plugin's settings, which reach it on its standard input (``WorkerSettings``).
    package let settings: [String: String]
    let handlerTimeout: Double
    let stopTimeout: Double
    let crashLimit: Int
    let crashWindow: Double
    /// MiB; 0 for no limit.
    let memoryLimit: Int
    /// The largest frame a call may take (its record's bytes, and more): its call ring holds two.
    package let largestFrame: Int
}

extension WorkerLaunch {
    /// What a process of a plugin did as it ended, for the log line that
    /// says so: what it sent that was `malformed`, why the host killed it
    /// (`killedFor`), or how it crashed; `place`: where its calls stood.
    func ending(malformed: String?, killedFor: ChildProcess.KillReason?, place: String, how: String) -> String {
        switch (malformed, killedFor) {
        case (let malformed?, _): malformed
        case (nil, .handlerTimeout?): "was killed after --handler-timeout \(handlerTimeout)s \(place)"
        case (nil, .stopTimeout?): "was killed when --stop-timeout \(stopTimeout)s ran out \(place)"
        case (nil, nil): "crashed \(place): \(how)"
        }
    }
}

/// What a worker's watcher thread posts to the dispatch thread.
enum WorkerEvent: Sendable {
    /// The process `process` of the worker `worker` ended, with this wait status.
    case ended(worker: ObjectIdentifier, process: ObjectIdentifier, Int32)
    /// Data verdicts came in during a wait, for the dispatch loop to apply.
    case held
    /// A worker's watcher found answers the dispatch thread has not taken.
    case answersWaiting
}

/// The plugins of a run that run apart (``RemotePlaces``), in workers and
/// as process plugins' programs: their answers and what their watcher
/// threads post, and the calls under way in their processes, on the
/// dispatch thread.
package final class Workers: RemotePlaces {
    let inbox = Inbox<WorkerEvent>()
    /// What `--metrics` counts of the workers (starts, crashes, restarts), when it is on.
    var metrics: WorkerMetrics?
    @exclusivity(unchecked) private(set) var all: [Worker] = []
    /// The process plugins.
    @exclusivity(unchecked) private(set) var programs: [ProcessPlugin] = []
    /// The pipeline's stages, which it clears when it goes; held without a
    /// reference count (a weak one would make every count of theirs slow).
    package unowned(unsafe) var verdicts: (any VerdictTaker)?
    package unowned(unsafe) var turns: (any TurnTaker)?

    /// Takes the verdict of the plugin numbered `plugin` on the message of
    /// `flight`, whose handle was at `handle`; `reason` explains a failure
    /// the plugin did not give.
    typealias VerdictSink = (_ flight: InFlight, _ handle: UInt, _ verdict: ph_verdict, _ plugin: Int32, _ reason: String?) -> Void
    /// Why the last token call in a worker failed, for its event.
    private var problem: String?
    /// How many workers have a UI call under way.
    package let uiCalls = UICallCount()

    /// Data verdicts that came in during a wait, which runs inside a
    /// stage: applied by the next `takeAnswers` from the dispatch loop.
    private var held: [(flight: InFlight, handle: UInt, verdict: ph_verdict, plugin: Int32, reason: String?)] = []

    package init() {}

    var isEmpty: Bool { all.isEmpty && programs.isEmpty }

    func add(_ worker: Worker) {
        metrics?.disabled(worker.name, false)
        all.append(worker)
    }

    func add(_ program: ProcessPlugin) {
        metrics?.disabled(program.name, false)
        programs.append(program)
    }

    /// Forgets `remote`, stopped.
    func remove(_ remote: any RemotePlugin) {
        all.removeAll { $0 === remote }
        programs.removeAll { $0 === remote }
    }

    func post(_ event: WorkerEvent) {
        inbox.post(event)
    }

    // MARK: Calls under way

    func noteProblem(_ reason: String) {
        problem = reason
    }

    package func takeProblem() -> String? {
        defer { problem = nil }
        return problem
    }

    /// The UI calls of `worker` began to be, or ceased to be, under way:
    /// the count, and which one is busy when one is (when one of two ends,
    /// the other is looked for).
    func noteUIUnderWay(_ busy: Bool, by plugin: AnyObject) {
        let count = uiCalls.busy + (busy ? 1 : -1)
        let only: AnyObject? = count != 1 ? nil : busy ? plugin
            : all.first { $0 !== plugin && $0.hasUIUnderWay } ?? programs.first { $0 !== plugin && $0.hasUIUnderWay }
        uiCalls.set(busy: count, only: only.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    package func waitForUICalls(except: (any RemotePlugin)?) {
        // One worker busy, and it is the one the call goes to: its calls keep their order there.
        guard uiCalls.mustWait(for: except.map { Unmanaged.passUnretained($0 as AnyObject).toOpaque() }) else { return }
        wait { !all.contains { $0 !== except && $0.hasUIUnderWay } && !programs.contains { $0 !== except && $0.hasUIUnderWay } }
    }

    package func endCallsUnderWay() -> Bool {
        programs.reduce(all.reduce(false) { $1.endCallUnderWay() || $0 }) { $1.endCallUnderWay() || $0 }
    }

    package func waitForAllCalls() {
        wait { !all.contains { $0.hasCallUnderWay } && !programs.contains { $0.hasCallUnderWay } }
    }

    /// Sends what was posted, and waits until every call posted to `worker` returned.
    func settle(_ worker: Worker) {
        wait { !worker.hasCallUnderWay }
    }

    package func wait(until done: () -> Bool) {
        guard !done() else { return }
        flush()
        let heldBefore = held.count
        let hold: VerdictSink = { [unowned self] in held.append(($0, $1, $2, $3, $4)) }
        while !done() {
            take(hold)
            guard !done() else { break }
            var waits = PollSet()
            waits.watch(inbox.fd) {}
            addWakes(to: &waits) {}
            waits.wake(in: millisecondsToNextRestart())
            waits.poll()
        }
        if held.count > heldBefore { inbox.post(.held) }
    }

    package func addWaits(to waits: inout PollSet, woken: @escaping () -> Void) {
        waits.watch(inbox.fd, woken)
        addWakes(to: &waits, woken: woken)
        waits.wake(in: millisecondsToNextRestart())
    }

    /// Asks every worker for a wake-up at its next answers, and watches
    /// their sockets for it (the dispatch thread is about to sleep): `woken`
    /// runs after a worker's wake-ups are read. No sleep when answers came already.
    private func addWakes(to waits: inout PollSet, woken: @escaping () -> Void) {
        for worker in all {
            guard let socket = worker.wakeSocket else { continue }
            if worker.requestWake() { waits.wake(in: 0) }
            waits.watch(socket) {
                worker.takeWakes()
                woken()
            }
        }
        for program in programs {
            if program.hasAnswers { waits.wake(in: 0) }
            if let pipe = program.answerPipe { waits.watch(pipe, woken) }
            if let pipe = program.waitingForRoom {
                waits.watch(pipe, for: Int16(POLLOUT)) {
                    program.flush()
                    woken()
                }
            }
        }
    }

    package var haveAnswers: Bool {
        if inbox.hasItems { return true }
        for index in all.indices where all[index].hasAnswers { return true }
        return programs.contains { $0.mayHaveAnswers() }
    }

    // MARK: The dispatch loop

    package func flush() {
        for worker in all { worker.flush() }
        for program in programs { program.flush() }
    }

    /// Applies what the workers sent (and the verdicts held during a
    /// wait), and restarts the ones whose backoff ended.
    package func takeAnswers() {
        guard let verdicts else { return }
        if !held.isEmpty {
            let taken = held
            held.removeAll()
            for verdict in taken {
                verdicts.take(verdict.verdict, for: verdict.flight, handle: verdict.handle, plugin: verdict.plugin, reason: verdict.reason)
            }
        }
        // Borrowed by the closure, which does not escape: no count a verdict.
        take { verdicts.take($2, for: $0, handle: $1, plugin: $3, reason: $4) }
    }

    /// Applies what the workers sent, data verdicts through `verdicts`.
    private func take(_ verdicts: VerdictSink) {
        for worker in all { worker.takeAnswers(verdicts: verdicts) }
        for program in programs { program.takeAnswers(verdicts: verdicts) }
        if inbox.hasItems {
            for event in inbox.take() {
                switch event {
                case .ended(let id, let process, let status):
                    // What it answered before it ended comes first.
                    if let program = programs.first(where: { ObjectIdentifier($0) == id }), program.process.map(ObjectIdentifier.init) == process {
                        program.takeAnswers(verdicts: verdicts)
                        program.ended(status, verdicts: verdicts)
                        continue
                    }
                    guard let worker = all.first(where: { ObjectIdentifier($0) == id }), worker.process.map(ObjectIdentifier.init) == process else { continue }
                    worker.takeAnswers(verdicts: verdicts)
                    worker.ended(status, verdicts: verdicts)
                case .held, .answersWaiting:
                    break
                }
            }
        }
        guard all.contains(where: { $0.isRestarting }) || programs.contains(where: { $0.isRestarting }) else { return }
        let now = MonotonicClock.now()
        for worker in all { worker.restartIfDue(now: now, verdicts: verdicts) }
        for program in programs { program.restartIfDue(now: now, verdicts: verdicts) }
    }

    /// Milliseconds until a worker is due to start again; -1 when none is.
    private func millisecondsToNextRestart() -> Int32 {
        var wait: Int32 = -1
        for at in all.compactMap(\.restartTime) + programs.compactMap(\.restartTime) {
            wait = PollWait.sooner(wait, MonotonicClock.milliseconds(until: at))
        }
        return wait
    }

    package func tokenChanged(to token: String) {
        for worker in all { worker.tokenChanged(to: token) }
    }
}
