#if canImport(Glibc)
import Glibc
#endif
import CSandbox
import PushHostSystem
import Synchronization

/// One process plugin's program as the host sees it: started through
/// `pushhost worker --program` (``ProgramStart``), its calls written to a
/// pipe that is its standard input, its answers read from a pipe that is
/// its standard output (both without blocking the dispatch thread), its
/// standard error logged as the plugin's (``WorkerOutput``), and a thread
/// that watches its calls against `--handler-timeout` and learns how it ended.
final class ProgramProcess: ChildProcess, @unchecked Sendable {
    /// The host's ends: where its calls go, where its answers come from.
    let calls: Int32
    let answers: Int32
    /// Readable once the process the host waits for ended; -1 when there is no pidfd.
    private let ended: Int32
    /// The bytes of its answers read and not yet taken (those after its ready line, at first).
    var unread = ByteBuffer(capacity: 1 << 16)
    /// Whether its answers' pipe reached its end.
    var hungUp = false
    /// The last lines it wrote on its standard error, for the reason it is
    /// refused at start (a dry run's: all of them, for its listing).
    let lastWords: CapturedLog
    /// Whether its calls' pipe was closed (a stop).
    private var callsClosed = false
    /// The first malformed thing it wrote, once it wrote one.
    private let malformed = Mutex<MalformedAnswer?>(nil)

    /// Starts the program of `launch` for the plugin `plugin`; what it
    /// writes on its standard error is kept in `log` when given.
    init(_ launch: WorkerLaunch, plugin: String, log: CapturedLog? = nil) throws(SetupError) {
        lastWords = log ?? CapturedLog(keepingLast: 8)
        let lines = try WorkerOutput(plugin: plugin, log: lastWords)
        defer { lines.handed() }
        var callPipe: [Int32] = [0, 0]
        var answerPipe: [Int32] = [0, 0]
        guard pipe(&callPipe) == 0 else { throw SetupError("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&answerPipe) == 0 else {
            callPipe.forEach { close($0) }
            throw SetupError("pipe: \(String(cString: strerror(errno)))")
        }
        for end in callPipe + answerPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        guard let settingsFile = WorkerSettings.file(launch.settings) else {
            (callPipe + answerPipe).forEach { close($0) }
            throw SetupError("cannot make a file for a program's settings: \(String(cString: strerror(errno)))")
        }
        defer { close(settingsFile) }
        // Room for a window of calls and their answers, so that each side writes and reads in few turns.
        for end in [callPipe[1], answerPipe[1]] { _ = fcntl(end, 1031 /* F_SETPIPE_SZ */, Int32(1 << 18)) }
        // The output first, before a descriptor it may share a number with is replaced.
        let descriptors: [(Int32, Int32)] = [(2, lines.writeEnd), (1, answerPipe[1]), (ProgramStart.callsFD, callPipe[0]), (0, settingsFile)]
        let spawned = WorkerSpawn.start(launch.executable, launch.arguments, descriptors: descriptors, walled: launch.walled)
        close(callPipe[0])
        close(answerPipe[1])
        let started: WorkerSpawn.Started
        switch spawned {
        case .success(let spawned):
            started = spawned
        case .failure(let error):
            close(callPipe[1])
            close(answerPipe[0])
            throw SetupError("cannot start the program (\(launch.executable)): \(error)")
        }
        calls = callPipe[1]
        answers = answerPipe[0]
        for end in [calls, answers] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        // -1 where the kernel has none (or under valgrind): its watcher then looks for its end.
        ended = ph_pidfd_open(started.pid)
        super.init(started: started, output: lines)
    }

    deinit {
        if !callsClosed { close(calls) }
        close(answers)
        if ended >= 0 { close(ended) }
    }

    /// How a program's start went.
    enum Start {
        /// Its first line names the protocol version it speaks.
        case ready
        /// It ended without a first line.
        case silent
        /// It did not write one within the timeout.
        case late
        /// Its first line is not `{"pushhost":1}`: what it is.
        case malformed(String)
    }

    /// Reads the program's first line, waiting up to `timeout` seconds (0:
    /// no limit); what came after it is kept for the first take.
    func awaitReady(timeout: Double) -> Start {
        let deadline = timeout > 0 ? MonotonicClock.now() &+ UInt64(timeout * 1e9) : .max
        while true {
            if let newline = unread.bytes.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(unread.bytes[..<newline])
                unread.removeFirst(newline + 1)
                return ProgramAnswers.readyProblem(line).map(Start.malformed) ?? .ready
            }
            if unread.count > ProgramAnswers.lineLimit { return .malformed("a first line longer than \(ProgramAnswers.lineLimit) bytes") }
            var watched = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let polled = poll(&watched, 1, deadline == .max ? -1 : MonotonicClock.milliseconds(until: deadline))
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { return .late }
            switch readAnswers() {
            case .some(0): return .silent
            default: continue
            }
        }
    }

    /// Reads what its answers' pipe holds into ``unread``, without waiting:
    /// the bytes read (0 at the pipe's end), nil when there were none.
    @discardableResult
    func readAnswers() -> Int? {
        var total = 0
        while true {
            let count = unread.read(from: answers, atMost: 1 << 16)
            if count < 0 && errno == EINTR { continue }
            if count == 0 {
                hungUp = true
                return total
            }
            if count < 0 { return total > 0 ? total : nil }
            total += count
            if count < 1 << 16 { return total }
        }
    }

    /// The bytes at the start of `out` already written (the pipe took part of it).
    private var written = 0

    /// Writes what `out` holds to its calls' pipe as far as it takes them,
    /// without waiting; what it did not take stays in `out`, and is written
    /// first the next time. A closed pipe (the program is gone, or going)
    /// takes nothing: its watcher learns of its end.
    func write(_ out: inout ByteBuffer) {
        while written < out.count {
            let count = Glibc.write(calls, out.bytes.baseAddress! + written, out.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
        out.removeAll()
        written = 0
    }

    /// Ends a program that wrote something malformed: `problem` is what
    /// ``rejection`` says (the first one).
    func reject(_ problem: MalformedAnswer) {
        malformed.withLock { $0 = $0 ?? problem }
        Glibc.kill(pid, SIGKILL)
    }

    /// What it wrote that was malformed, if it did.
    var rejection: MalformedAnswer? { malformed.withLock { $0 } }

    /// Closes its calls' pipe: the program reads their end, and is to end.
    func closeCalls() {
        guard !callsClosed else { return }
        callsClosed = true
        close(calls)
    }

    /// Starts the thread that kills the program when a call goes over
    /// `timeout` seconds (0: never), calls `waiting` when it finds answers
    /// the host has not taken during a call, and `ended` with its wait
    /// status once it is gone.
    func startWatching(timeout: Double, waiting: @escaping @Sendable () -> Void, ended: @escaping @Sendable (Int32) -> Void) {
        let answers = answers
        watch(end: self.ended, events: Int16(POLLIN), timeout: timeout, hostIsBehind: {
            var watched = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            return poll(&watched, 1, 0) > 0
        }, waiting: waiting) { [self] in
            ended(reap(reported: killedFor == nil && rejection == nil))
        }
    }
}
