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
package final class WorkerProcess: ChildProcess, @unchecked Sendable {
    /// The byte a worker sends on its socket when it put answers in its ring.
    static let wake: UInt8 = 1

    /// The host's end of the socket pair.
    let socket: Int32
    let ring: WorkerRing
    /// The first malformed thing it sent, once it sent one.
    private let malformed: MalformedNote
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
        let started: WorkerSpawn.Started
        switch spawned {
        case .success(let spawned):
            started = spawned
        case .failure(let error):
            close(pair[0])
            close(intake[0])
            throw SetupError("cannot start a worker (\(executable)): \(error)")
        }
        socket = pair[0]
        malformed = MalformedNote(socket: pair[0])
        super.init(started: started, output: lines)
        // The relay's thread keeps it until the worker is gone.
        _ = IntakeRelay(socket: intake[0], plugin: plugin, submissions: submissions, results: results, metrics: metrics) { [malformed] in
            malformed.note($0)
        }
    }

    deinit {
        malformed.close()
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
        // Only the socket's end: its wake-ups are the dispatch thread's to read.
        watch(end: socket, events: 0x2000 /* POLLRDHUP */, timeout: timeout, hostIsBehind: { [ring] in ring.isWaitingForHost }, waiting: waiting) { [self] in
            // A worker that ended on its own is reported by the process that stands in for it (walled): not killed first.
            ended(reap(reported: rejection == nil && killedFor == nil))
        }
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
