#if canImport(Glibc)
import Glibc
#endif

/// How a worker process begins: the host starts `pushhost worker ...` from
/// this very binary, and the worker first ties its life to the host's and
/// closes what it inherited, before any plugin code runs in it.
enum WorkerSpawn {
    /// Starts `executable worker arguments...`, its standard input
    /// /dev/null, `descriptors` (the worker's number, the host's
    /// descriptor) in place, and its standard output the host's standard
    /// error when `outputToError`. The Swift runtime's backtracer is off in
    /// it: its crash is the host's to report. Its pid, or the `errno` of
    /// the failure.
    static func start(_ executable: String, _ arguments: [String], descriptors: [(Int32, Int32)], outputToError: Bool = false) -> Result<pid_t, Errno> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if outputToError { posix_spawn_file_actions_adddup2(&actions, 2, 1) }
        for (number, descriptor) in descriptors { posix_spawn_file_actions_adddup2(&actions, descriptor, number) }
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
        var child: pid_t = 0
        // This very binary, even when a newer one replaced it on disk meanwhile.
        let path = executable.hasSuffix(" (deleted)") ? "/proc/self/exe" : executable
        let status = posix_spawn(&child, path, &actions, nil, argv, environment)
        return status == 0 ? .success(child) : .failure(Errno(status))
    }

    /// An `errno` value, as an error.
    struct Errno: Error, CustomStringConvertible {
        let code: Int32

        init(_ code: Int32) {
            self.code = code
        }

        var description: String { String(cString: strerror(code)) }
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
    /// without close-on-exec (its report, its spool).
    static func closeInherited(from first: Int32) {
        typealias Closefrom = @convention(c) (Int32) -> Void
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "closefrom") else { return }
        unsafeBitCast(symbol, to: Closefrom.self)(first)
    }
}
