#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import CSandbox
import PushHostSystem

/// How a worker process begins: the host starts `pushhost worker ...` from
/// this very binary, and the worker first ties its life to the host's and
/// closes what it inherited, before any plugin code runs in it.
///
/// A walled worker starts in namespaces of its own (user, PID, mount),
/// with a `/proc` that holds only its own processes: the Swift runtime's
/// thread pool reads its threads' `/proc/TID/stat`, which the walls can
/// then grant without granting anything of the host. The first process
/// there stands in for it (``standInIfFirst()``): it forks the worker,
/// reaps, and tells the host how the worker ended, since the first process
/// of a PID namespace cannot die of most signals (an `abort()` in it would
/// not end it with SIGABRT).
enum WorkerSpawn {
    /// The descriptor on which a walled worker's first process reports the worker's wait status.
    static let statusFD: Int32 = 7

    /// A started worker.
    struct Started {
        /// The process the host waits for: the worker, or the first process of its namespace.
        let pid: pid_t
        /// The end of the pipe the first process reports on (walled), else nil: ``status(waited:)``.
        let statusPipe: Int32?

        /// Waits up to `timeout` seconds for its first process to report
        /// how the worker ended (at once when it runs unwalled: there is
        /// nothing to wait for), so that it is not killed before it could.
        func awaitReport(timeout: Double) {
            guard let statusPipe else { return }
            var watched = pollfd(fd: statusPipe, events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, Int32(timeout * 1000))
        }

        /// The worker's wait status, given what `waitpid` said of ``pid``:
        /// what its first process reported, or (killed before it could
        /// report) its own. Closes the pipe.
        func status(waited: Int32) -> Int32 {
            guard let statusPipe else { return waited }
            defer { close(statusPipe) }
            var reported: Int32 = 0
            let count = withUnsafeMutableBytes(of: &reported) { read(statusPipe, $0.baseAddress, $0.count) }
            return count == MemoryLayout<Int32>.size ? reported : waited
        }
    }

    /// Starts `executable worker arguments...` (the host's own build, as
    /// `/proc/self/exe` once an upgrade replaced `executable`), its standard input
    /// /dev/null, `descriptors` (the worker's number, the host's
    /// descriptor) in place; in namespaces of its own when `walled`, or,
    /// where they cannot be made, without them, telling the worker why
    /// (`--namespace-failure`, a wall that did not stand). The Swift
    /// runtime's backtracer is off in it: its crash is the host's to
    /// report. The `errno` of the failure when it cannot start.
    static func start(
        _ executable: String, _ arguments: [String], descriptors placed: [(Int32, Int32)], walled: Bool
    ) -> Result<Started, Errno> {
        guard walled else { return unwalled(executable, arguments, placed) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return .failure(Errno(errno)) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[1]) }
        switch spawn(executable, arguments, placed + [(statusFD, ends[1])], walled: true) {
        case .success(let pid):
            return .success(Started(pid: pid, statusPipe: ends[0]))
        case .failure(let failure):
            close(ends[0])
            guard failure.namespaces else { return .failure(failure.errno) }
            let reason = "\(failure.step): \(failure.errno)"
            return unwalled(executable, arguments + ["--namespace-failure", reason], placed)
        }
    }

    private static func unwalled(_ executable: String, _ arguments: [String], _ placed: [(Int32, Int32)]) -> Result<Started, Errno> {
        spawn(executable, arguments, placed, walled: false).map { Started(pid: $0, statusPipe: nil) }.mapError(\.errno)
    }

    /// Why a walled worker could not have namespaces of its own here
    /// (`pushhost plugins` says so), or nil when it can: a child that makes
    /// them, and ends.
    static func namespaceProbe() -> String? {
        var request = ph_spawn(
            path: nil, argv: nil, envp: nil, from: nil, to: nil, count: 0, stdin_null: 0, walled: 1, uid: geteuid(), gid: getegid())
        var step: Int32 = 0, error: Int32 = 0
        let pid = ph_spawn_start(&request, &step, &error)
        guard pid > 0 else { return "\(String(cString: ph_spawn_step_name(step))): \(Errno(error))" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return nil
    }

    /// The file the first worker was started from, as it was then.
    private static let firstBuild = Mutex<(device: UInt64, inode: UInt64)?>(nil)

    /// Whether the file at `executable` is still the one the first worker
    /// was started from (at the host's start): after an upgrade replaced
    /// it, a worker is started from `/proc/self/exe`, the host's own build
    /// (which a program under valgrind cannot exec: valgrind's own).
    private static func isOwnBuild(_ executable: String) -> Bool {
        var status = stat()
        guard stat(executable, &status) == 0 else { return false }
        let file = (device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        return firstBuild.withLock { first in
            guard let first else {
                first = file
                return true
            }
            return first == file
        }
    }

    /// Why a start failed: at which step, and whether the namespaces were to blame.
    private struct Failure: Error {
        let step: String
        let errno: Errno
        let namespaces: Bool
    }

    private static func spawn(_ executable: String, _ arguments: [String], _ placed: [(Int32, Int32)], walled: Bool) -> Result<pid_t, Failure> {
        let argv = ([executable, "worker"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no")]
        var index = 0
        while let variable = environ[index] {
            if strncmp(variable, "SWIFT_BACKTRACE=", 16) != 0 { environment.append(strdup(variable)) }
            index += 1
        }
        environment.append(nil)
        defer { environment.forEach { free($0) } }
        // This very build, even when an upgrade replaced its file meanwhile: a
        // worker reads the host's own memory layout of a message (its image).
        let path = isOwnBuild(executable) ? executable : "/proc/self/exe"
        let from = placed.map(\.1), to = placed.map(\.0)
        var step: Int32 = 0, error: Int32 = 0
        let pid = path.withCString { path in
            from.withUnsafeBufferPointer { from in
                to.withUnsafeBufferPointer { to in
                    argv.withUnsafeBufferPointer { argv in
                        environment.withUnsafeBufferPointer { environment in
                            var request = ph_spawn(
                                path: path, argv: argv.baseAddress, envp: environment.baseAddress, from: from.baseAddress, to: to.baseAddress,
                                count: Int32(placed.count), stdin_null: 1, walled: walled ? 1 : 0, uid: geteuid(), gid: getegid())
                            return ph_spawn_start(&request, &step, &error)
                        }
                    }
                }
            }
        }
        guard pid < 0 else { return .success(pid) }
        let namespaces = walled && step != Int32(PH_SPAWN_DESCRIPTORS) && step != Int32(PH_SPAWN_EXEC)
        return .failure(Failure(step: String(cString: ph_spawn_step_name(step)), errno: Errno(error), namespaces: namespaces))
    }

    /// [in the worker] Whether it runs in namespaces of its own (its first
    /// process stands in for it), once ``standInIfFirst()`` ran.
    nonisolated(unsafe) private(set) static var inOwnNamespaces = false

    /// [in the worker, first thing] When this is the first process of a
    /// walled worker's namespaces, forks: this process stays behind to
    /// stand in for the worker (``ph_become_init``) and never returns, the
    /// child goes on as the worker.
    static func standInIfFirst() {
        guard getpid() == 1 else { return }
        guard ph_become_init(statusFD) == 0 else { exit(1) }
        inOwnNamespaces = true
    }

    /// [in the worker] Whether the host that started it is gone (its
    /// parent is no longer the host, or, in namespaces of its own, no
    /// longer the process that stands in for it).
    static func hostGone(_ host: pid_t) -> Bool {
        inOwnNamespaces ? getppid() != 1 : getppid() != host
    }

    /// [in the worker] Asks the kernel for SIGKILL when the host dies
    /// (`prctl(PR_SET_PDEATHSIG)`), so a worker stuck in its plugin does not outlive it.
    static func dieWithParent() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        let setParentDeathSignal: Int32 = 1  // PR_SET_PDEATHSIG
        _ = unsafeBitCast(symbol, to: Prctl.self)(setParentDeathSignal, UInt(SIGKILL), 0, 0, 0)
    }

    /// [in the worker] Closes every descriptor from `first` up
    /// (`closefrom`): the plugin gets none of what the host had open
    /// without close-on-exec (its report, its spool), nor the pipe its
    /// first process reports on.
    static func closeInherited(from first: Int32) {
        typealias Closefrom = @convention(c) (Int32) -> Void
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "closefrom") else { return }
        unsafeBitCast(symbol, to: Closefrom.self)(first)
    }
}
