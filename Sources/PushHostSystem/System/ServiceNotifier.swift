#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Tells a service manager how the host stands, in systemd's notification
/// protocol (`sd_notify(3)`): `READY=1` once it dispatches, `STATUS=` lines,
/// `WATCHDOG=1` keep-alives and `STOPPING=1`.
///
/// The protocol is spoken over its socket directly (no libsystemd): one
/// `AF_UNIX` datagram socket, and one `sendto` per notification, each a whole
/// datagram of `KEY=VALUE` lines. `NOTIFY_SOCKET` names the manager's socket,
/// a path (`/run/systemd/notify`) or an abstract name (`@name`). Without it
/// the notifier does nothing at all: no socket, no clock reads, no sends.
///
/// A send that fails (nothing listens, the manager is gone) is logged once
/// at debug level and never stops the host; one waits at most a second
/// while the manager's queue is full.
///
/// Everything here but `fromEnvironment` runs on the dispatch thread.
package final class ServiceNotifier {
    /// The notifier of this process, once `fromEnvironment` read it.
    nonisolated(unsafe) private static var taken: ServiceNotifier?

    /// The socket the notifications go out on; -1 without `NOTIFY_SOCKET`.
    private let socket: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0
    /// How often `WATCHDOG=1` goes out (ns): half of `WATCHDOG_USEC`; 0 for never.
    private let pingInterval: UInt64
    /// When the next `WATCHDOG=1` is due (monotonic ns).
    private var nextPing: UInt64 = 0
    private let logger: Logger
    private var failureLogged = false
    private var readySent = false
    private var stoppingSent = false
    /// The progress the last `STATUS=` showed, and when the next may go (monotonic ns).
    private var shown = Counts()
    private var nextStatus: UInt64 = 0
    /// Whether the progress changed since it was last shown.
    private var statusOwed = false

    /// What a `STATUS=` line counts while the host dispatches: records handled
    /// (a `done` result), failed and rejected.
    package struct Counts: Equatable {
        package var done = 0
        package var failed = 0
        package var rejected = 0

        package init(done: Int = 0, failed: Int = 0, rejected: Int = 0) {
            self.done = done
            self.failed = failed
            self.rejected = rejected
        }
    }

    /// What `/healthz` answers (`--metrics`), told the same as the manager.
    package var health: Health?

    /// Whether there is a manager to tell anything.
    package var isActive: Bool { socket >= 0 }
    /// Whether the manager's watchdog waits for `WATCHDOG=1`.
    package var pings: Bool { pingInterval != 0 }

    /// The notifier the service manager asked for through the environment,
    /// read at the first call (later calls return the same one).
    ///
    /// `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` are then taken out
    /// of the environment, as `sd_notify`'s `unset_environment` does, so that
    /// plugins and the programs they start do not speak for the service.
    /// The watchdog counts only when `WATCHDOG_PID`, if set, is this process.
    /// Call it before anything starts threads or processes (the environment
    /// is not thread-safe): the host does, first thing.
    @discardableResult
    package static func fromEnvironment(logger: Logger) -> ServiceNotifier {
        if let taken { return taken }
        let socket = variable("NOTIFY_SOCKET")
        let usec = variable("WATCHDOG_USEC").flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
        let forUs = variable("WATCHDOG_PID").map { Int32(String(decoding: $0, as: UTF8.self)) == getpid() } ?? true
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) }
        // Half the interval, in ns.
        let made = ServiceNotifier(socket: socket ?? [], pingInterval: forUs ? min(usec, UInt64.max / 500) * 500 : 0, logger: logger)
        taken = made
        return made
    }

    /// The bytes of the environment variable `name`, or nil when it is not set.
    private static func variable(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// A notifier sending to `name` (a path, or `@` and an abstract name;
    /// empty for none), pinging every `pingInterval` ns (0: never).
    init(socket name: [UInt8], pingInterval: UInt64, logger: Logger) {
        self.logger = logger
        guard !name.isEmpty else {
            socket = -1
            self.pingInterval = 0
            return
        }
        let abstract = name[0] == UInt8(ascii: "@")
        // A path needs room for its NUL too.
        let fits = name.count + (abstract ? 0 : 1) <= MemoryLayout.size(ofValue: address.sun_path)
        if fits && (abstract || name[0] == UInt8(ascii: "/")) {
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                path.copyBytes(from: name)
                if abstract { path[0] = 0 }
            }
            // A path ends with its NUL; an abstract name is exactly its bytes.
            let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
            addressLength = socklen_t(offset + name.count + (abstract ? 0 : 1))
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        } else {
            socket = -1
        }
        guard socket >= 0 else {
            let why = !fits ? "too long for a socket address" : abstract || name[0] == UInt8(ascii: "/")
                ? "socket: \(String(cString: strerror(errno)))" : "neither a path nor an @abstract name"
            let printed = LogEscape.escaped(String(decoding: name, as: UTF8.self))
            logger.debug("NOTIFY_SOCKET \(printed): \(why); no service notifications")
            self.pingInterval = 0
            return
        }
        // A manager that does not read for a second does not hold the host longer.
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        self.pingInterval = pingInterval
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    // MARK: What the host says

    /// `READY=1` with `STATUS=status`: the host dispatches from now on;
    /// `progress` is where the counts stand.
    package func ready(status: @autoclosure () -> String, progress: Counts) {
        guard isActive || health != nil else { return }
        let status = status()
        health?.ready(status)
        guard isActive else { return }
        readySent = true
        shown = progress
        nextStatus = MonotonicClock.now() &+ 1_000_000_000
        send("READY=1\nSTATUS=\(Self.line(status))")
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (now, as systemd's reload
    /// protocol asks) and `STATUS=status`: a reload began, and ``ready(status:progress:)``
    /// says when it ended (either way). `/healthz` stays as it was.
    package func reloading(status: @autoclosure () -> String) {
        guard isActive, readySent, !stoppingSent else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
        send("RELOADING=1\nMONOTONIC_USEC=\(microseconds)\nSTATUS=\(Self.line(status()))")
    }

    /// `STOPPING=1` with `STATUS=status`, the first time only: a stop began.
    package func stopping(status: @autoclosure () -> String) {
        guard isActive || health != nil, !stoppingSent else { return }
        stoppingSent = true
        let status = status()
        health?.down(status)
        if isActive { send("STOPPING=1\nSTATUS=\(Self.line(status))") }
    }

    /// `STATUS=failed: reason` for a run that ends in an error, after
    /// `STOPPING=1` when the host had said it was ready and no stop began.
    package func failed(_ reason: @autoclosure () -> String) {
        guard isActive || health != nil else { return }
        let reason = Self.line(reason())
        health?.down("failed: \(reason)")
        guard isActive else { return }
        let status = "STATUS=failed: \(reason)"
        send(readySent && !stoppingSent ? "STOPPING=1\n" + status : status)
        stoppingSent = stoppingSent || readySent
    }

    /// One turn of the dispatch loop, once ready: `WATCHDOG=1` when due, and
    /// `STATUS=` with the text `status` makes of `progress` when `progress`
    /// changed and a second passed since the last status (none once a stop
    /// began). The milliseconds until the next turn is needed, for `poll`
    /// (-1: none is).
    package func turn(progress: Counts, status: (Counts) -> String) -> Int32 {
        guard isActive, readySent else { return -1 }
        let now = MonotonicClock.now()
        var wait: Int32 = -1
        if pings {
            ping(now)
            wait = Self.milliseconds(from: now, to: nextPing)
        }
        guard !stoppingSent else { return wait }
        statusOwed = statusOwed || progress != shown
        guard statusOwed else { return wait }
        guard now >= nextStatus else { return PollWait.sooner(wait, Self.milliseconds(from: now, to: nextStatus)) }
        shown = progress
        statusOwed = false
        nextStatus = now &+ 1_000_000_000
        send("STATUS=\(Self.line(status(progress)))")
        return wait
    }

    /// `WATCHDOG=1` when due: between the records of one turn, so that a
    /// long burst keeps the manager's watchdog fed.
    ///
    /// One read of the coarse clock (`MonotonicClock.coarse()`), a few
    /// milliseconds behind at most, which only makes a ping that late.
    @inline(__always)
    package func pingIfDue() {
        ping(MonotonicClock.coarse())
    }

    private func ping(_ now: UInt64) {
        guard now >= nextPing else { return }
        nextPing = now &+ pingInterval
        send("WATCHDOG=1")
    }

    // MARK: The socket

    /// Sends `text` as one datagram; the first failure is logged (debug).
    private func send(_ text: String) {
        var text = text
        let failure = text.withUTF8 { bytes in
            withUnsafePointer(to: &address) { address in
                address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Int32 in
                    while sendto(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, addressLength) < 0 {
                        if errno != EINTR { return errno }
                    }
                    return 0
                }
            }
        }
        guard failure != 0, !failureLogged else { return }
        failureLogged = true
        let key = text.prefix { $0 != "=" }
        logger.debug("service notification \(key) not sent: \(String(cString: strerror(failure))) (later failures are not logged)")
    }

    /// `text` on one line: a status is one `KEY=VALUE` line of the datagram.
    private static func line(_ text: String) -> String {
        LogEscape.escaped(text)
    }

    private static func milliseconds(from now: UInt64, to deadline: UInt64) -> Int32 {
        deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }
}
