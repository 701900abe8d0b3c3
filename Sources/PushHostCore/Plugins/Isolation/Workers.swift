#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// How the host starts a worker, and the limits it keeps it to.
struct WorkerLaunch {
    /// The exit status of a worker whose plugin's `create` failed.
    static let createFailed: Int32 = 3

    /// This binary, which the worker runs as `pushhost worker ...`.
    let executable: String
    let arguments: [String]
    let handlerTimeout: Double
    let stopTimeout: Double
    let crashLimit: Int
    let crashWindow: Double
    /// MiB; 0 for no limit.
    let memoryLimit: Int
}

/// What a worker's reader thread posts to the dispatch thread.
enum WorkerEvent: Sendable {
    /// Whole frames the worker of plugin `plugin` sent.
    case frames(plugin: Int32, process: ObjectIdentifier, [UInt8])
    /// Its worker process ended, with this wait status.
    case ended(plugin: Int32, process: ObjectIdentifier, Int32)
}

/// The isolated plugins of a run: what their reader threads post, and the
/// calls under way in their workers, on the dispatch thread.
///
/// UI calls keep the order of SPEC section 5: a UI call posted to one worker
/// first waits for the UI calls under way in every other (`settle(except:)`);
/// the pipeline settles them all before any handler that runs in the host.
package final class Workers {
    let inbox = Inbox<WorkerEvent>()
    private(set) var all: [Worker] = []
    private var byPlugin: [Int32: Worker] = [:]
    /// Where data verdicts go (the data stage), once it exists.
    weak var verdicts: (any VerdictSink)?
    /// The last UI call posted since `takePosted()`.
    private var posted: (worker: Worker, call: UInt64)?

    var isEmpty: Bool { all.isEmpty }

    func add(_ worker: Worker) {
        all.append(worker)
        byPlugin[worker.plugin] = worker
    }

    func post(_ event: WorkerEvent) {
        inbox.post(event)
    }

    /// The worker of the plugin numbered `plugin`, nil when it runs in the host.
    func worker(ofPlugin plugin: Int32) -> Worker? {
        byPlugin[plugin]
    }

    /// Whether no call is under way in any worker.
    var isIdle: Bool { all.allSatisfy(\.isIdle) }

    // MARK: UI calls

    func notePostedUI(_ worker: Worker, call: UInt64) {
        posted = (worker, call)
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

    /// The worker that may have UI calls under way, when only one does.
    var uiWorker: Worker? {
        let busy = all.filter(\.hasUIUnderWay)
        return busy.count == 1 ? busy[0] : nil
    }

    /// Whether any worker has a UI call under way.
    var hasUIUnderWay: Bool { all.contains(where: \.hasUIUnderWay) }

    /// Sends what was posted, and waits until no worker but `except` has a
    /// UI call under way (restarting workers whose backoff ends meanwhile).
    func settle(except: Worker? = nil) {
        guard all.contains(where: { $0 !== except && $0.hasUIUnderWay }) else { return }
        flush()
        while all.contains(where: { $0 !== except && $0.hasUIUnderWay }) {
            var watched = pollfd(fd: inbox.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, millisecondsToNextRestart())
            takeEvents()
        }
    }

    // MARK: The dispatch loop

    /// Sends every worker what was posted to it.
    func flush() {
        for worker in all { worker.flush() }
    }

    /// Applies what the workers sent, and restarts the ones whose backoff ended.
    func takeEvents() {
        if inbox.hasItems, let verdicts {
            for event in inbox.take() {
                switch event {
                case .frames(let plugin, let process, let bytes):
                    guard let worker = byPlugin[plugin], worker.process.map(ObjectIdentifier.init) == process else { continue }
                    worker.take(bytes, verdicts: verdicts)
                case .ended(let plugin, let process, let status):
                    guard let worker = byPlugin[plugin], worker.process.map(ObjectIdentifier.init) == process else { continue }
                    worker.ended(status, verdicts: verdicts)
                }
            }
        }
        let now = MonotonicClock.now()
        for worker in all {
            worker.restartIfDue(now: now)
            worker.checkMemory(now: now)
        }
    }

    /// Milliseconds until a worker is due to start again, or to have its
    /// memory checked; -1 when none is.
    func millisecondsToNextRestart() -> Int32 {
        var wait: Int32 = -1
        for worker in all {
            if let at = worker.restartTime { wait = PollWait.sooner(wait, MonotonicClock.milliseconds(until: at)) }
            if worker.checksMemory { wait = PollWait.sooner(wait, 100) }
        }
        return wait
    }

    /// Tells every worker the current token changed.
    func tokenChanged(to token: String) {
        for worker in all { worker.tokenChanged(to: token) }
    }
}
