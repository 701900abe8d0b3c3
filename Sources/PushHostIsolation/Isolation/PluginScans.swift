#if canImport(Glibc)
import Glibc
#endif
import CSandbox
import PushHostSystem
import PushHostPlugins

/// The scans of plugin files, each in a short-lived worker of its own
/// (`pushhost worker --scan --plugin FILE`, ``PluginScan``), so that no
/// code of those libraries runs in the host: all started at once, then
/// waited for together, so a start with many plugins takes about as long
/// as its slowest scan.
///
/// A worker answers over its end of a socket pair, its fd 3 (``ScanAnswer``); its standard
/// output and error are log lines of the host's that name the file
/// (``WorkerOutput``), so that a constructor that prints cannot mix into a
/// listing nor pass for the host. A worker that dies of a signal, exits
/// without answering, takes longer than `--handler-timeout` (it is then
/// killed) or sends more than ``ScanAnswer/limit`` bytes refuses its
/// plugin, and the others go on.
package enum PluginScans {
    /// One worker under way.
    private final class Scan {
        let started: WorkerSpawn.Started
        var pid: pid_t { started.pid }
        let output: WorkerOutput
        /// The host's end of its socket pair; -1 once closed.
        var fd: Int32
        /// A descriptor that polls readable once it ended (`pidfd_open`), or -1
        /// where the kernel has none: its end is then looked for every 10 ms.
        let ended: Int32
        var bytes: [UInt8] = []
        /// Its wait status, once it ended.
        var status: Int32?
        /// Killed for sending too much: what it sent.
        var overflow: String?
        var timedOut = false

        init(started: WorkerSpawn.Started, output: WorkerOutput, fd: Int32) {
            self.started = started
            self.output = output
            self.fd = fd
            ended = ph_pidfd_open(started.pid)
        }

        deinit {
            if ended >= 0 { close(ended) }
        }
    }

    /// What the scan of each of `files` read, in their order.
    package static func run(_ files: [String], isolation: IsolationOptions) -> [Result<PluginDescriptor, PluginRefusal>] {
        let started = files.map { file in
            Result { () throws(PluginRefusal) -> Scan in try start(file, isolation: isolation) }
        }
        let scans = started.compactMap { try? $0.get() }
        wait(for: scans, timeout: isolation.handlerTimeout)
        // What they wrote comes before what the host says of them.
        for scan in scans { scan.output.finish(timeout: 1) }
        return zip(files, started).map { file, started in
            Result { () throws(PluginRefusal) -> PluginDescriptor in try outcome(of: started.get(), file: file, timeout: isolation.handlerTimeout) }
        }
    }

    /// Starts the worker that scans `file`.
    private static func start(_ file: String, isolation: IsolationOptions) throws(PluginRefusal) -> Scan {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .workerFailed("cannot make a socket pair to scan it: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let walls = isolation.sandbox == .off ? [] : ["--sandbox", isolation.sandbox.rawValue]
        let arguments = ["--scan", "--plugin", file, "--host", "\(getpid())"] + walls + WorkerOutput.inJSON(isolation.logArguments)
        let output: WorkerOutput
        do {
            output = try WorkerOutput(plugin: file)
        } catch {
            close(ends[0])
            throw .workerFailed(error.description)
        }
        defer { output.handed() }
        let descriptors = [(1, output.writeEnd), (2, output.writeEnd), (PluginScan.channel, ends[1])]
        switch WorkerSpawn.start(IsolationOptions.executable, arguments, descriptors: descriptors, walled: isolation.sandbox != .off) {
        case .success(let started):
            return Scan(started: started, output: output, fd: ends[0])
        case .failure(let error):
            close(ends[0])
            throw .workerFailed("cannot start a worker to scan it (\(IsolationOptions.executable)): \(error)")
        }
    }

    /// Reads every scan's answer until each worker has ended, killing those
    /// still running after `timeout` seconds (0: no limit).
    private static func wait(for scans: [Scan], timeout: Double) {
        let deadline = timeout > 0 ? MonotonicClock.now() &+ UInt64(timeout * 1e9) : .max
        while true {
            for scan in scans where scan.status == nil {
                var status: Int32 = 0
                guard waitpid(scan.pid, &status, WNOHANG) == scan.pid else { continue }
                scan.status = scan.started.status(waited: status)
                // What it wrote before it ended; a process it left behind may hold its end open.
                read(scan)
                closeSocket(scan)
            }
            let running = scans.filter { $0.status == nil }
            guard !running.isEmpty else { return }
            let left = deadline == .max ? -1 : MonotonicClock.milliseconds(until: deadline)
            guard left != 0 else {
                for scan in running {
                    scan.timedOut = true
                    end(scan)
                }
                return
            }
            // Woken by what a worker writes, when its socket's end closes, or when it ends.
            var watched = running.filter { $0.fd >= 0 }.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            watched += running.filter { $0.ended >= 0 }.map { pollfd(fd: $0.ended, events: Int16(POLLIN), revents: 0) }
            // Without a pidfd for each, an end is looked for every 10 ms.
            let timeout = running.allSatisfy({ $0.ended >= 0 }) || (left > 0 && left < 10) ? left : 10
            _ = poll(&watched, nfds_t(watched.count), timeout)
            for scan in running where scan.fd >= 0 { read(scan) }
        }
    }

    /// Takes what the socket of `scan` holds now; kills a worker that sends
    /// more than an answer may have.
    private static func read(_ scan: Scan) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while scan.fd >= 0 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(scan.fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count != 0 else { return closeSocket(scan) }
            guard count > 0 else { return }
            scan.bytes += chunk[..<count]
            if scan.bytes.count >= 4 {
                let length = scan.bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
                if length > ScanAnswer.limit {
                    scan.overflow = "an answer that says \(length) bytes, more than the \(ScanAnswer.limit) a scan may send"
                }
            }
            if scan.bytes.count > 4 + ScanAnswer.limit {
                scan.overflow = scan.overflow ?? "more than the \(ScanAnswer.limit) bytes a scan may send"
            }
            if scan.overflow != nil { return scan.status == nil ? end(scan) : closeSocket(scan) }
        }
    }

    /// Kills the worker of `scan` and waits for it.
    private static func end(_ scan: Scan) {
        closeSocket(scan)
        kill(scan.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(scan.pid, &status, 0) < 0 && errno == EINTR {}
        scan.status = scan.started.status(waited: status)
    }

    private static func closeSocket(_ scan: Scan) {
        guard scan.fd >= 0 else { return }
        close(scan.fd)
        scan.fd = -1
    }

    /// The plugin's descriptor, or why it is refused.
    private static func outcome(of scan: Scan, file: String, timeout: Double) throws(PluginRefusal) -> PluginDescriptor {
        if let overflow = scan.overflow { throw .malformedScan(overflow) }
        if scan.timedOut { throw .hungLoading(timeout: timeout) }
        let status = scan.status ?? 0
        if status & 0x7f != 0 { throw .crashedLoading(signal: Worker.describe(status)) }
        if (status >> 8) & 0xff != 0 || scan.bytes.isEmpty { throw .exitedLoading(status: Worker.describe(status)) }
        return try ScanAnswer.read(scan.bytes, file: file)
    }
}
