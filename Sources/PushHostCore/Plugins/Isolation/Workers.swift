#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostSystem

/// How the host starts a worker, and the limits it keeps it to.
struct WorkerLaunch {
    /// The exit status of a worker whose plugin's `create` failed.
    static let createFailed: Int32 = 3
    /// The exit status of a worker whose plugin offers a `ph.source/1` or `ph.interceptor/1` table it cannot use.
    static let unusableExtension: Int32 = 4
    /// The exit status of a worker whose walls could not stand (`--sandbox`), or whose grants are malformed.
    static let wallsFailed: Int32 = 5

    /// This binary, which the worker runs as `pushhost worker ...`.
    let executable: String
    let arguments: [String]
    /// Behind walls (`--sandbox` on or strict): started in namespaces of its own (``WorkerSpawn``).
    let walled: Bool
    /// The bus its plugin's grants name, when walled: the host connects to it for the worker (``BusBroker``).
    let bus: String?
    /// Its plugin's settings, which reach it on its standard input (``WorkerSettings``).
    let settings: [String: String]
    let handlerTimeout: Double
    let stopTimeout: Double
    let crashLimit: Int
    let crashWindow: Double
    /// MiB; 0 for no limit.
    let memoryLimit: Int
}

/// What a worker's watcher thread posts to the dispatch thread.
enum WorkerEvent: Sendable {
    /// Its worker process ended, with this wait status.
    case ended(plugin: Int32, process: ObjectIdentifier, Int32)
    /// Data verdicts came in during a settle, for the dispatch loop to apply.
    case held
}

/// The isolated plugins of a run: their answers and what their watcher
/// threads post, and the calls under way in their workers, on the
/// dispatch thread.
///
/// UI calls keep the host's order (input order): a UI call posted to one worker
/// first waits for the UI calls under way in every other (`settle(except:)`);
/// the pipeline settles them all before any handler that runs in the host.
package final class Workers {
    let inbox = Inbox<WorkerEvent>()
    /// What `--metrics` counts of the workers (starts, crashes, restarts), when it is on.
    var metrics: WorkerMetrics?
    @exclusivity(unchecked) private(set) var all: [Worker] = []
    /// The workers by plugin number, nil for a plugin in the host.
    @exclusivity(unchecked) private var byPlugin: [Worker?] = []
    /// Takes a data verdict on the dispatch thread (the data stage's), once it exists.
    var applyVerdict: VerdictTaker?
    /// Where isolated interceptors' turns end (the interceptor stage), once it exists.
    unowned var interception: (any TurnTaker)?

    /// Takes the verdict of the plugin numbered `plugin` on the message
    /// whose handle is at `message`, in `flight` when the data stage said so
    /// (``flightInCall``); `reason` explains a failure the plugin did not give.
    typealias VerdictTaker = (_ message: UInt, _ flight: AnyObject?, _ verdict: ph_verdict, _ plugin: Int32, _ reason: String?) -> Void
    /// The record whose message the data stage hands an isolated `on_data`
    /// now (opaque here): its worker keeps it with the call, and gives it
    /// back with the verdict, so that the stage finds it without a lookup.
    @exclusivity(unchecked) var flightInCall: AnyObject?
    /// The last UI call posted since `takePosted()`.
    @exclusivity(unchecked) private var posted: (worker: Worker, call: UInt64)?
    /// Why the last token call in a worker failed, for its event.
    private var problem: String?
    /// How many workers have a UI call under way, and the last one that began to.
    @exclusivity(unchecked) private var busyWithUI = 0
    @exclusivity(unchecked) private unowned(unsafe) var lastBusy: Worker?

    /// Data verdicts that came in during a settle, which runs inside a
    /// stage: applied by the next `takeEvents` from the dispatch loop.
    private var held: [(message: UInt, flight: AnyObject?, verdict: ph_verdict, plugin: Int32, reason: String?)] = []

    var isEmpty: Bool { all.isEmpty }

    func add(_ worker: Worker) {
        metrics?.disabled(worker.name, false)
        all.append(worker)
        while byPlugin.count <= Int(worker.plugin) { byPlugin.append(nil) }
        byPlugin[Int(worker.plugin)] = worker
    }

    func post(_ event: WorkerEvent) {
        inbox.post(event)
    }

    /// The worker of the plugin numbered `plugin`, nil when it runs in the host.
    func worker(ofPlugin plugin: Int32) -> Worker? {
        Int(plugin) < byPlugin.count ? byPlugin[Int(plugin)] : nil
    }

    // MARK: UI calls

    func notePostedUI(_ worker: Worker, call: UInt64) {
        posted = (worker, call)
    }

    /// Forgets the last call posted when it was `worker`'s, whose answer
    /// the host already waited for (a source's `start` and `stop`).
    func forgetPosted(_ worker: Worker) {
        if posted?.worker === worker { posted = nil }
    }

    /// The last UI call posted since the last time, if any: what a report line waits for.
    func takePosted() -> (worker: Worker, call: UInt64)? {
        defer { posted = nil }
        return posted
    }

    /// Whether `call` of `worker` was answered (or failed).
    func isReturned(_ worker: Worker, _ call: UInt64) -> Bool {
        worker.returnedThrough >= call
    }

    func noteProblem(_ reason: String) {
        problem = reason
    }

    /// Why a token call failed since the last time, if one did.
    func takeProblem() -> String? {
        defer { problem = nil }
        return problem
    }

    /// The worker that may have UI calls under way, when only one does.
    var uiWorker: Worker? {
        guard busyWithUI == 1 else { return nil }
        if let last = lastBusy, last.hasUIUnderWay { return last }
        return all.first { $0.hasUIUnderWay }
    }

    /// Whether any worker has a UI call under way.
    var hasUIUnderWay: Bool { busyWithUI > 0 }

    /// A worker's UI calls began to be, or ceased to be, under way.
    func noteUIUnderWay(_ busy: Bool, in worker: Worker) {
        busyWithUI += busy ? 1 : -1
        if busy { lastBusy = worker }
    }

    /// Sends what was posted, and waits until no worker but `except` has a
    /// UI call under way (restarting workers whose backoff ends meanwhile).
    func settle(except: Worker? = nil) {
        guard busyWithUI > (except?.hasUIUnderWay == true ? 1 : 0) else { return }
        settle { $0 !== except && $0.hasUIUnderWay }
    }

    /// At a stop's deadline: kills each worker that still has a call under
    /// way (its call fails), so that the stop ends now.
    func endCallsUnderWay() {
        for worker in all { worker.endCallUnderWay() }
    }

    /// Sends what was posted, and waits until every call posted returned
    /// (data calls included): a host event then comes after the data
    /// stages of the messages before it, as it does in the host.
    func settleAll() {
        settle(until: \.hasCallUnderWay)
    }

    /// Sends what was posted, and waits until every call posted to `worker` returned.
    func settle(_ worker: Worker) {
        settle { $0 === worker && $0.hasCallUnderWay }
    }

    /// Waits while a worker is `busy`, taking what the workers send.
    private func settle(until busy: (Worker) -> Bool) {
        guard all.contains(where: busy) else { return }
        flush()
        let heldBefore = held.count
        let hold: VerdictTaker = { [unowned self] in held.append(($0, $1, $2, $3, $4)) }
        while all.contains(where: busy) {
            take(hold)
            guard all.contains(where: busy) else { break }
            var waits = PollSet()
            waits.watch(inbox.fd) {}
            addWakes(to: &waits) {}
            waits.wake(in: millisecondsToNextRestart())
            waits.poll()
        }
        if held.count > heldBefore { inbox.post(.held) }
    }

    /// Asks every worker for a wake-up at its next answers, and watches
    /// their sockets for it (the dispatch thread is about to sleep): `woken`
    /// runs after a worker's wake-ups are read. No sleep when answers came already.
    func addWakes(to waits: inout PollSet, woken: @escaping () -> Void) {
        for worker in all {
            guard let socket = worker.wakeSocket else { continue }
            if worker.requestWake() { waits.wake(in: 0) }
            waits.watch(socket) {
                worker.takeWakes()
                woken()
            }
        }
    }

    /// Whether a worker put answers in its ring that are not taken yet.
    var haveAnswers: Bool {
        all.contains { $0.hasAnswers }
    }

    // MARK: The dispatch loop

    /// Sends every worker what was posted to it.
    func flush() {
        for worker in all { worker.flush() }
    }

    /// Applies what the workers sent (and the verdicts held during a
    /// settle), and restarts the ones whose backoff ended.
    func takeEvents() {
        guard let applyVerdict else { return }
        if !held.isEmpty {
            let verdicts = held
            held.removeAll()
            for verdict in verdicts { applyVerdict(verdict.message, verdict.flight, verdict.verdict, verdict.plugin, verdict.reason) }
        }
        take(applyVerdict)
    }

    /// Applies what the workers sent, data verdicts through `verdicts`.
    private func take(_ verdicts: VerdictTaker) {
        for worker in all { worker.takeAnswers(verdicts: verdicts) }
        if inbox.hasItems {
            for event in inbox.take() {
                switch event {
                case .ended(let plugin, let process, let status):
                    guard let worker = worker(ofPlugin: plugin), worker.process.map(ObjectIdentifier.init) == process else { continue }
                    // What it answered before it ended comes first.
                    worker.takeAnswers(verdicts: verdicts)
                    worker.ended(status, verdicts: verdicts)
                case .held:
                    break
                }
            }
        }
        let now = MonotonicClock.now()
        for worker in all { worker.restartIfDue(now: now, verdicts: verdicts) }
    }

    /// Milliseconds until a worker is due to start again; -1 when none is.
    func millisecondsToNextRestart() -> Int32 {
        var wait: Int32 = -1
        for worker in all {
            if let at = worker.restartTime { wait = PollWait.sooner(wait, MonotonicClock.milliseconds(until: at)) }
        }
        return wait
    }

    /// Tells every worker the current token changed.
    func tokenChanged(to token: String) {
        for worker in all { worker.tokenChanged(to: token) }
    }
}

/// Where an isolated interceptor's turns stand in the host: the interceptor
/// stage, which owns the chains (`ph_chain *`, here as their address).
protocol TurnTaker: AnyObject {
    /// The message of the turn under `chain`, or a handle that names none.
    func message(ofTurn chain: UInt) -> OpaquePointer
    /// Ends the turn under `chain` as it ended in the worker, after making
    /// the edits it made there (each checked again, as a `set` in the host is).
    func end(turn chain: UInt, _ ending: InterceptedEnding, reason: String?, edits: [ChainEdit])
    /// Fails the message of the turn under `chain`: its worker could not end the turn.
    func fail(turn chain: UInt, reason: String)
}
