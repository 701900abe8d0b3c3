#if canImport(Glibc)
import Glibc
#endif
import PushHostIntake
import PushHostSystem
import Synchronization
import PushHostPlugins

/// One worker process as the host sees it: `pushhost worker`, started from
/// this very binary with one end of a socket pair as its fd 3, its rings
/// as fd 4 (``WorkerRing``: the calls go into one, its answers come in the
/// other) and the end of another socket pair as fd 5 (its plugin's
/// records, ``IntakeRelay``), and a thread that watches its calls against
/// `--handler-timeout` and learns how it ended. Its answers are taken from
/// its ring by the dispatch thread (``Worker/takeAnswers(verdicts:)``).
///
/// Its socket carries its first frame (``WorkerFrame/FrameKind/ready``),
/// and then only wake-ups (``wake``) each way, when one side sleeps.
/// Whatever it sends that a worker does not (``MalformedAnswer``) ends it:
/// ``reject(_:)``.
package final class WorkerProcess: @unchecked Sendable {
    /// The byte a worker sends on its socket when it put answers in its ring.
    static let wake: UInt8 = 1

    /// The process the host waits for and kills (``WorkerSpawn/Started``).
    let pid: pid_t
    private let started: WorkerSpawn.Started
    /// Its standard output and error, which the host logs.
    private let output: WorkerOutput
    /// The host's end of the socket pair.
    let socket: Int32
    let ring: WorkerRing
    /// Calls posted, and calls returned: written by the dispatch thread
    /// alone (a load and a store, no read-modify-write), read by the watcher.
    let posted = Atomic<UInt64>(0)
    let returned = Atomic<UInt64>(0)
    /// When the calls last made progress (monotonic ns, the coarse clock:
    /// noted per call, for a timeout in seconds): a call returned, or one
    /// was posted to an idle worker.
    let progress = Atomic<UInt64>(0)
    /// Why the host killed it for a call under way (a ``KillReason``'s raw
    /// value; 0 before): the first reason wins.
    private let killReason = Atomic<UInt8>(0)
    /// Why the host kills a worker with a call under way.
    enum KillReason: UInt8 {
        /// The call was under way longer than `--handler-timeout` (the reader's watcher).
        case handlerTimeout = 1
        /// A stop's `--stop-timeout` ran out while it was (the dispatch thread).
        case stopTimeout = 2
    }

    /// Why it was killed for a call under way, once it was.
    var killedFor: KillReason? { KillReason(rawValue: killReason.load(ordering: .relaxed)) }

    /// Kills it for `reason`, unless it was killed for one already.
    func kill(for reason: KillReason) {
        if killReason.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed).exchanged {
            Glibc.kill(pid, SIGKILL)
        }
    }

    /// Its wait status, once it ended (-1 before).
    private let ended = Mutex<Int32>(-1)
    /// The first malformed thing it sent, once it sent one.
    private let malformed: MalformedNote
    private let endedPipe = WakePipe()
    /// Whether its socket reached its end (the dispatch thread stops watching it).
    private(set) var hungUp = false
    /// Where the results of the records its plugin submitted go.
    let results = RecordResults()

    /// Starts `executable worker arguments...`, its standard input
    /// /dev/null, its standard output and error a pipe whose lines the host
    /// logs as the plugin's (``WorkerOutput``; a dry run's own `output`,
    /// which keeps them too). The Swift runtime's backtracer is off in it:
    /// its crash is the host's to report.
    package init(
        executable: String, arguments: [String], walled: Bool, bus: String? = nil, settings: [String: String] = [:], largestFrame: Int, plugin: String,
        submissions: PluginSubmissions, metrics: PluginMetrics,
        output: WorkerOutput? = nil
    ) throws(SetupError) {
        let lines: WorkerOutput
        if let output { lines = output } else { lines = try WorkerOutput(plugin: plugin) }
        self.output = lines
        defer { lines.handed() }
        guard let ring = WorkerRing(largestFrame: largestFrame) else {
            throw SetupError("cannot make a worker's rings: \(String(cString: strerror(errno)))")
        }
        self.ring = ring
        var pair: [Int32] = [0, 0]
        var intake: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SetupError("socketpair: \(String(cString: strerror(errno)))")
        }
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &intake) == 0 else {
            close(pair[0])
            close(pair[1])
            throw SetupError("socketpair: \(String(cString: strerror(errno)))")
        }
        var size: Int32 = 1 << 20
        for end in pair {
            _ = setsockopt(end, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(end, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        // Its bus, connected by the host (the worker's end as fd 6).
        var broker: [Int32] = [-1, -1]
        if bus != nil && socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &broker) != 0 {
            let failure = String(cString: strerror(errno))
            for end in pair + intake { close(end) }
            throw SetupError("socketpair: \(failure)")
        }
        guard let settingsFile = WorkerSettings.file(settings) else {
            for end in pair + intake + broker where end >= 0 { close(end) }
            throw SetupError("cannot make a file for a worker's settings: \(String(cString: strerror(errno)))")
        }
        defer { close(settingsFile) }
        // The output first, before a descriptor it may share a number with is replaced.
        let descriptors: [(Int32, Int32)] = [(1, lines.writeEnd), (2, lines.writeEnd), (3, pair[1]), (4, ring.fd), (WorkerIntake.fd, intake[1])]
            + (broker[1] >= 0 ? [(BusBrokerClient.fd, broker[1])] : []) + [(0, settingsFile)]
        let spawned = WorkerSpawn.start(executable, arguments, descriptors: descriptors, walled: walled)
        close(pair[1])
        close(intake[1])
        if broker[1] >= 0 { close(broker[1]) }
        if let bus, broker[0] >= 0 {
            if case .success = spawned { BusBroker.serve(broker[0], bus: bus) } else { close(broker[0]) }
        }
        switch spawned {
        case .success(let started):
            self.started = started
        case .failure(let error):
            close(pair[0])
            close(intake[0])
            throw SetupError("cannot start a worker (\(executable)): \(error)")
        }
        pid = started.pid
        socket = pair[0]
        malformed = MalformedNote(socket: pair[0])
        progress.store(MonotonicClock.coarse(), ordering: .relaxed)
        // The relay's thread keeps it until the worker is gone.
        _ = IntakeRelay(socket: intake[0], plugin: plugin, submissions: submissions, results: results, metrics: metrics) { [malformed] in
            malformed.note($0)
        }
    }

    deinit {
        malformed.close()
        endedPipe.close()
    }

    /// How a worker's start went.
    enum Start {
        /// Created: the extensions its plugin offers.
        case ready(offers: Int32)
        /// It ended without a word.
        case silent
        /// It did not say anything within the timeout.
        case late
        /// Its first frame is not a ready frame.
        case malformed(MalformedAnswer)
    }

    /// Reads the worker's first frame (``WorkerFrame/FrameKind/ready``),
    /// waiting up to `timeout` seconds (0: no limit).
    func awaitReady(timeout: Double) -> Start {
        var header = [UInt8](repeating: 0, count: WorkerFrame.headerSize)
        var filled = 0
        let deadline = timeout > 0 ? MonotonicClock.now() &+ UInt64(timeout * 1e9) : .max
        while filled < header.count {
            var watched = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let wait = deadline == .max ? -1 : MonotonicClock.milliseconds(until: deadline)
            let polled = poll(&watched, 1, wait)
            guard polled > 0 else { return polled == 0 ? .late : .silent }
            let count = header.withUnsafeMutableBytes { read(socket, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .silent }
            filled += count
        }
        return header.withUnsafeBytes { bytes in
            do throws(MalformedAnswer) {
                return .ready(offers: try WorkerAnswer.offers(inReady: bytes))
            } catch {
                return .malformed(error)
            }
        }
    }

    /// Starts the thread that kills the worker when a call goes over
    /// `timeout` seconds (0: never), calls `waiting` when it finds answers
    /// the host has not taken during a call, and `ended` with the worker's
    /// wait status once it is gone.
    func startWatching(timeout: Double, waiting: @escaping @Sendable () -> Void, ended: @escaping @Sendable (Int32) -> Void) {
        let watcher = Watcher(process: self, timeout: timeout, waiting: waiting, ended: ended)
        DetachedThread.startOrFail { watcher.run() }
    }

    /// What ``takeWakes()`` found on the socket.
    enum Wakes {
        /// Wake-ups only, or nothing.
        case woken
        /// A byte that is no wake-up.
        case stray(UInt8)
        /// The socket's end: the worker is gone, or going.
        case hungUp
    }

    /// Reads the wake-up bytes on the socket, without waiting (dispatch thread).
    func takeWakes() -> Wakes {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            let count = withUnsafeMutableBytes(of: &bytes) { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .woken }
            guard count > 0 else {
                hungUp = true
                return .hungUp
            }
            let stray = withUnsafeBytes(of: bytes) { $0[..<count].first { $0 != Self.wake } }
            if let stray { return .stray(stray) }
        }
    }

    /// Puts the frames `out` holds (those that waited for room) into its
    /// call ring as far as they fit (the rest stay in `out`), and wakes the
    /// worker when it sleeps. Never
    /// waits: a worker that claims to be behind keeps its calls waiting
    /// (and `--handler-timeout` ends it), one whose ring is malformed is ended.
    func send(_ out: inout ByteBuffer) {
        if !out.isEmpty {
            let taken: Int
            do {
                taken = try ring.putCalls(out.bytes)
            } catch {
                return reject(error)
            }
            if taken == out.count { out.removeAll() } else { out.removeFirst(taken) }
        }
        wakeIfAsleep()
    }

    /// Wakes the worker when it sleeps and asked for a wake-up at the next calls.
    func wakeIfAsleep() {
        guard ring.takeCallWakeRequest() else { return }
        // A full socket holds wake-ups the worker has not read: one more changes nothing.
        var byte = Self.wake
        _ = Glibc.send(socket, &byte, 1, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
    }

    /// Notes a posted call; the clock of a worker that had nothing to do starts now.
    func notePosted() {
        let before = posted.load(ordering: .relaxed)
        posted.store(before &+ 1, ordering: .relaxed)
        if before == returned.load(ordering: .relaxed) { progress.store(MonotonicClock.coarse(), ordering: .relaxed) }
    }

    /// Its wait status once it ended, waiting up to `timeout` seconds; nil while it runs.
    func waitForEnd(timeout: Double) -> Int32? {
        let deadline = MonotonicClock.now() &+ UInt64(max(0, timeout) * 1e9)
        while true {
            if let status = endStatus { return status }
            let left = MonotonicClock.milliseconds(until: deadline)
            guard left > 0 else { return nil }
            var watched = pollfd(fd: endedPipe.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, left)
        }
    }

    /// Its wait status, or nil while it runs.
    var endStatus: Int32? {
        let status = ended.withLock { $0 }
        return status < 0 ? nil : status
    }

    /// Waits up to `timeout` seconds until what it wrote is logged.
    func finishOutput(timeout: Double) {
        output.finish(timeout: timeout)
    }

    /// Waits up to `timeout` seconds for the report of its end (``WorkerSpawn/Started/awaitReport(timeout:)``).
    func awaitReport(timeout: Double) {
        started.awaitReport(timeout: timeout)
    }

    /// Its wait status, given what `waitpid` said of ``pid``.
    func status(waited: Int32) -> Int32 {
        started.status(waited: waited)
    }

    fileprivate func noteEnd(_ status: Int32) {
        ended.withLock { $0 = status }
        endedPipe.wake()
    }

    /// Notes that `count` calls returned (dispatch thread, as it takes their answers).
    func noteReturned(_ count: UInt64) {
        returned.store(returned.load(ordering: .relaxed) &+ count, ordering: .relaxed)
        progress.store(MonotonicClock.coarse(), ordering: .relaxed)
    }

    /// Ends a worker that sent something malformed, from any thread: its
    /// watcher kills it and reports its end; `problem` is what
    /// ``rejection`` says (the first one, when there are two). The answers
    /// it put in its ring before are taken; those after, when the problem
    /// is in its answers, are not (``Worker``).
    func reject(_ problem: MalformedAnswer) {
        malformed.note(problem)
    }

    /// What it sent that was malformed, if it did.
    var rejection: MalformedAnswer? { malformed.first }
}

/// The first malformed thing a worker sent, noted from any thread (its
/// intake relay's, the dispatch thread), which shuts its socket down so
/// that its watcher ends it. It is apart from ``WorkerProcess`` so that the
/// relay holds no weak reference to the process: a weakly referenced
/// object pays for every retain.
private final class MalformedNote: Sendable {
    private let state: Mutex<(problem: MalformedAnswer?, closed: Bool)>
    private let socket: Int32

    init(socket: Int32) {
        self.socket = socket
        state = Mutex((nil, false))
    }

    var first: MalformedAnswer? { state.withLock { $0.problem } }

    func note(_ problem: MalformedAnswer) {
        state.withLock { state in
            state.problem = state.problem ?? problem
            // Its watcher wakes to the end of the socket, and kills it (it alone waits for it).
            if !state.closed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the socket (the process is gone): a later note only keeps the problem.
    func close() {
        state.withLock { state in
            state.closed = true
            _ = Glibc.close(socket)
        }
    }
}

/// The thread that watches one worker process: its calls against
/// `--handler-timeout`, and its end.
private final class Watcher {
    let process: WorkerProcess
    let timeout: UInt64
    let waiting: @Sendable () -> Void
    let ended: @Sendable (Int32) -> Void

    init(process: WorkerProcess, timeout: Double, waiting: @escaping @Sendable () -> Void, ended: @escaping @Sendable (Int32) -> Void) {
        self.process = process
        self.timeout = timeout > 0 ? UInt64(timeout * 1e9) : .max
        self.waiting = waiting
        self.ended = ended
    }

    func run() {
        let period: Int32 = timeout == .max ? -1 : Int32(max(5, min(100, Double(timeout) / 4e6)))
        while true {
            // Only the socket's end: its wake-ups are the dispatch thread's to read.
            var watched = pollfd(fd: process.socket, events: 0x2000 /* POLLRDHUP */, revents: 0)
            let ready = poll(&watched, 1, period)
            if ready < 0 && errno == EINTR { continue }
            if ready != 0 { break }
            checkTimeout()
        }
        // A worker that ended on its own is reported by the process that stands in for it (walled): not killed first.
        if process.rejection == nil && process.killedFor == nil { process.awaitReport(timeout: 1) }
        kill(process.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
        status = process.status(waited: status)
        // Its last words before what the host says of its end (a process it started may hold the pipe: not long).
        process.finishOutput(timeout: 1)
        process.noteEnd(status)
        // What it answered before it died is in its ring: the dispatch thread takes it first.
        ended(status)
    }

    /// Kills the worker when a call has been under way longer than the timeout.
    private func checkTimeout() {
        guard timeout != .max, process.posted.load(ordering: .relaxed) > process.returned.load(ordering: .relaxed) else { return }
        // Answers the host has not taken yet: the worker is not the one behind.
        // The host is woken for them, in case the worker wrote them without
        // the wake-up it owes: a hang then comes to its deadline.
        if process.ring.isWaitingForHost {
            process.progress.store(MonotonicClock.coarse(), ordering: .relaxed)
            return waiting()
        }
        guard MonotonicClock.coarse() &- process.progress.load(ordering: .relaxed) > timeout else { return }
        process.kill(for: .handlerTimeout)
    }
}
