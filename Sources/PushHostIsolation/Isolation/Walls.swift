#if canImport(Glibc)
import Glibc
#endif
import CSandbox
import Logging
import PushHostSystem
import PushHostPlugins

/// The walls a worker puts up around its plugin before it opens the
/// plugin's library, so that nothing of the plugin runs outside them: no
/// new privileges, Landlock (files; TCP ports from ABI 4; abstract sockets
/// and signals from ABI 6), a seccomp filter, and resource limits.
///
/// By default the plugin may read its library and the shared objects
/// beside it, the system's libraries and the data a C runtime reads,
/// and read and write its own state folder; nothing else, no network, no
/// new process. ``SandboxGrants`` add to that.
package enum Walls {
    /// What stood, and what could not, with why.
    struct Standing {
        var stood: [String] = []
        var fell: [String] = []
    }

    /// The Landlock ABI the kernel offers (0: none), whether the seccomp
    /// filter can be built here, and why a worker cannot have namespaces of
    /// its own (nil: it can): the walls a worker would put up.
    package static let available: (landlock: Int, seccomp: Bool, namespaces: String?) =
        (max(0, Int(ph_landlock_abi())), ph_seccomp_available() != 0, WorkerSpawn.namespaceProbe())

    /// Raises the walls for the plugin at `file` whose state folder is
    /// `stateFolder`, with `grants`; what stood. `namespaceFailure`: why
    /// the host could not start the worker in namespaces of its own.
    static func raise(file: String, stateFolder: String?, grants: SandboxGrants, namespaceFailure: String?) -> Standing {
        // Read while it can be: this executable, whose Swift toolchain a plugin's must be.
        _ = SwiftToolchain.host
        var standing = Standing()
        if WorkerSpawn.inOwnNamespaces {
            standing.stood.append("own namespaces")
        } else {
            standing.fell.append("own namespaces (\(namespaceFailure ?? "not started in them"))")
        }
        limit(grants, &standing)
        if ph_drop_capabilities() == 0 {
            standing.stood.append("no capabilities")
        } else {
            standing.fell.append("no capabilities (\(String(cString: strerror(errno))))")
        }
        if ph_no_new_privs() == 0 {
            standing.stood.append("no new privileges")
        } else {
            standing.fell.append("no new privileges (\(String(cString: strerror(errno))))")
        }
        landlock(file: file, stateFolder: stateFolder, grants: grants, &standing)
        var error = [CChar](repeating: 0, count: 256)
        var seccomp = ph_seccomp_grants(exec: grants.exec ? 1 : 0, inet: grants.network || !grants.connect.isEmpty ? 1 : 0)
        if ph_seccomp_load(&seccomp, &error, error.count) == 0 {
            standing.stood.append("seccomp")
        } else {
            standing.fell.append("seccomp (\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))")
        }
        return standing
    }

    private static func limit(_ grants: SandboxGrants, _ standing: inout Standing) {
        if let memory = grants.memory {
            // Beyond what the worker itself has mapped now (its runtime, its
            // handles' regions): the plugin's library and what it allocates.
            let bytes = rlim_t(ownAddressSpace()) + (rlim_t(memory) << 20)
            var limit = rlimit(rlim_cur: bytes, rlim_max: bytes)
            if setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 { standing.stood.append("memory \(memory) MiB") } else { standing.fell.append("memory limit") }
        }
        if let files = grants.files {
            var limit = rlimit(rlim_cur: rlim_t(files), rlim_max: rlim_t(files))
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 { standing.stood.append("\(files) open files") } else { standing.fell.append("open files limit") }
        }
    }

    /// Lets the next call take `seconds` of CPU beyond what the process
    /// used so far: past it, the kernel ends the worker with SIGXCPU, which
    /// the host reports as a crash of that call. (A plugin that catches the
    /// signal is still held to `--handler-timeout`.)
    static func allowCPU(_ seconds: Int) {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return }
        let used = Int(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = min(rlim_t(used + seconds), limit.rlim_max)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    }

    /// The bytes of address space this process has mapped, from `/proc/self/statm`.
    private static func ownAddressSpace() -> Int {
        guard let statm = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(statm) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), statm) != nil else { return 0 }
        let first = String(decoding: line.prefix { $0 != 0 && $0 != 32 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (Int(first) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The rights on files each Landlock ABI knows.
    private static func fileRights(abi: Int32) -> UInt64 {
        var rights: UInt64 = (1 << 13) - 1
        if abi >= 2 { rights |= UInt64(PH_LL_FS_REFER) }
        if abi >= 3 { rights |= UInt64(PH_LL_FS_TRUNCATE) }
        if abi >= 5 { rights |= UInt64(PH_LL_FS_IOCTL_DEV) }
        return rights
    }

    private static let readRights = UInt64(PH_LL_FS_READ_FILE | PH_LL_FS_READ_DIR | PH_LL_FS_EXECUTE)

    /// What every worker reads: the system's libraries and the data a C runtime reads.
    static let systemReads = [
        "/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
        "/etc/ssl", "/etc/ca-certificates", "/etc/nsswitch.conf", "/etc/hosts", "/etc/resolv.conf", "/etc/gai.conf",
        "/etc/host.conf", "/etc/services", "/etc/protocols", "/etc/passwd", "/etc/group", "/etc/locale.alias",
        "/sys/devices/system/cpu",
    ]
    /// What every worker reads and writes.
    static let systemWrites = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]

    private static func landlock(file: String, stateFolder: String?, grants: SandboxGrants, _ standing: inout Standing) {
        let abi = ph_landlock_abi()
        guard abi >= 1 else { return standing.fell.append("landlock (\(String(cString: strerror(errno))))") }
        let all = fileRights(abi: abi)
        let net: UInt64 = abi >= 4 && !grants.network ? UInt64(PH_LL_NET_BIND_TCP | PH_LL_NET_CONNECT_TCP) : 0
        // Its bus comes connected from the host (``BusBroker``): no abstract socket is the plugin's to reach.
        let scoped: UInt64 = abi >= 6 ? UInt64(PH_LL_SCOPE_SIGNAL | PH_LL_SCOPE_ABSTRACT_UNIX_SOCKET) : 0
        let ruleset = ph_landlock_ruleset(all, net, scoped)
        guard ruleset >= 0 else { return standing.fell.append("landlock (\(String(cString: strerror(errno))))") }
        defer { close(ruleset) }
        // In namespaces of its own, /proc holds only its own processes and their threads (whose
        // /proc/TID/stat the Swift runtime's thread pool reads); else only its own folder.
        let reads = systemReads + [WorkerSpawn.inOwnNamespaces ? "/proc" : "/proc/self"] + mappedFolders() + LinkedObjects.ofPlugin(file) + grants.read
        for path in reads { allow(path, readRights & all, in: ruleset) }
        // Device nodes nowhere: a worker of a root host could otherwise make one of a disk.
        let writes = all & ~UInt64(PH_LL_FS_MAKE_CHAR | PH_LL_FS_MAKE_BLOCK)
        for path in systemWrites + grants.write + (stateFolder.map { [$0] } ?? []) { allow(path, writes, in: ruleset) }
        for (_, port) in grants.connect where net != 0 {
            _ = ph_landlock_allow_port(ruleset, UInt64(port), UInt64(PH_LL_NET_CONNECT_TCP))
        }
        guard ph_landlock_restrict(ruleset) == 0 else { return standing.fell.append("landlock (\(String(cString: strerror(errno))))") }
        standing.stood.append("landlock \(abi)")
    }

    /// Grants `rights` beneath `path`, when it exists (a missing system path is skipped).
    private static func allow(_ path: String, _ rights: UInt64, in ruleset: Int32) {
        let fd = open(path, 0o10000000 /* O_PATH */ | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        // A rule on a file takes only the rights that apply to files.
        let onFile = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
        let fileOnly = UInt64(PH_LL_FS_EXECUTE | PH_LL_FS_WRITE_FILE | PH_LL_FS_READ_FILE | PH_LL_FS_TRUNCATE | PH_LL_FS_IOCTL_DEV)
        _ = ph_landlock_allow_path(ruleset, fd, onFile ? rights & fileOnly : rights)
    }

    /// The folders of the files this process has mapped (the Swift runtime's
    /// libraries, wherever the toolchain put them), which a plugin built
    /// in Swift links too.
    private static func mappedFolders() -> [String] {
        Set(MappedLibraries.paths().compactMap { path in path.lastIndex(of: "/").map { String(path[..<$0]) } }).sorted()
    }
}
