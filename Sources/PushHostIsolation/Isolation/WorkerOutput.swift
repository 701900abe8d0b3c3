#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostSystem
import PushHostPlugins

/// What a worker writes on its standard output and error: both go into a
/// pipe, which a thread of the host's reads until the worker and whatever
/// it started are gone. Nothing a worker writes reaches the host's standard
/// output (the report) or its standard error as it came: each line becomes
/// one log line of the host's that names the plugin.
///
/// A worker logs in JSON lines (`--log-format json`, ``inJSON(_:)``). A
/// record whose source is the plugin's name is logged again as the plugin's,
/// as a plugin in the host logs (`info cache: 3 messages cached`); any other
/// line, a record of another source (the worker's own `pushhost` lines, or
/// a plugin that writes one) or a plugin's `printf`, is logged as the
/// host's line about the plugin: `info pushhost: plugin cache: TEXT`, at the
/// record's level, else `info`. Every line is escaped as a log line is, cut
/// at ``lineLimit`` bytes, and held to ``linesPerSecond`` (a burst of
/// ``burst``): the lines past it are dropped and counted in one line.
///
/// Every byte comes from the worker, which its plugin owns: the source a
/// record names is never taken for who speaks.
package final class WorkerOutput: @unchecked Sendable {
    /// The most bytes of one line that reach the log.
    static let lineLimit = 2048
    /// The lines a second a worker's output may take, after a burst.
    static let linesPerSecond = 200
    static let burst = 1000

    /// The end the worker writes; closed here once the worker has it (``handed()``).
    let writeEnd: Int32
    private let readEnd: Int32
    /// Who writes: the plugin's name, or the file a scan reads.
    private let plugin: String
    /// Keeps each line too, when given (a dry run's).
    private let log: CapturedLog?
    /// Signalled once the pipe reached its end.
    private let ended = PipeSemaphore()
    // The reader thread's: the rate's budget and when it was last filled, and the lines dropped since.
    private var budget = Double(WorkerOutput.burst)
    private var filled = MonotonicClock.now()
    private var dropped = 0

    /// A pipe whose lines are `plugin`'s; both ends close on exec (the worker gets its end by `dup2`).
    package init(plugin: String, log: CapturedLog? = nil) throws(SetupError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw SetupError("cannot make a pipe for a worker's output: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        writeEnd = ends[1]
        self.plugin = plugin
        self.log = log
    }

    /// Closes the host's copy of the worker's end, and starts reading.
    func handed() {
        close(writeEnd)
        DetachedThread.startOrFail { [self] in read() }
    }

    /// Waits until the pipe reaches its end, `timeout` seconds at most.
    package func finish(timeout: Double) {
        var watched = pollfd(fd: ended.fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&watched, 1, Int32(timeout * 1000))
    }

    /// A worker's log flags, `arguments`, with JSON lines (which it reads).
    static func inJSON(_ arguments: [String]) -> [String] {
        var arguments = arguments
        if let flag = arguments.firstIndex(of: "--log-format"), flag + 1 < arguments.count {
            arguments[flag + 1] = "json"
        } else {
            arguments += ["--log-format", "json"]
        }
        return arguments
    }

    /// Reads lines until the end of the pipe; a line longer than the limit
    /// is cut there, and the rest of it skipped.
    private func read() {
        var pending: [UInt8] = []
        var skipped = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var start = 0
            while start < count {
                guard let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) else {
                    let room = max(0, Self.lineLimit - pending.count)
                    pending += chunk[start..<min(count, start + room)]
                    skipped += max(0, count - start - room)
                    break
                }
                let room = max(0, Self.lineLimit - pending.count)
                pending += chunk[start..<min(newline, start + room)]
                skipped += max(0, newline - start - room)
                take(pending, cut: skipped)
                pending.removeAll(keepingCapacity: true)
                skipped = 0
                start = newline + 1
            }
        }
        if !pending.isEmpty || skipped > 0 { take(pending, cut: skipped) }
        if dropped > 0 { sayDropped() }
        close(readEnd)
        ended.signal()
    }

    /// Logs one line (`cut`: the bytes of it past the limit), within the rate.
    private func take(_ line: [UInt8], cut: Int) {
        let now = MonotonicClock.now()
        budget = min(Double(Self.burst), budget + Double(now &- filled) / 1e9 * Double(Self.linesPerSecond))
        filled = now
        guard budget >= 1 else {
            dropped += 1
            return
        }
        budget -= 1
        if dropped > 0 { sayDropped() }
        let tail = cut > 0 ? " (\(cut) more bytes cut)" : ""
        if cut == 0, let (level, source, message) = Self.record(in: line) {
            if source == plugin {
                Logger(label: plugin).log(level: level, "\(message)")
                log?.keep(level, source: source, message)
                return
            }
            // Its own lines about the plugin say so already.
            let about = "plugin \(plugin): "
            let text = message.hasPrefix(about) ? String(message.dropFirst(about.count)) : message
            return say(level, source == PluginDescriptor.hostName ? text : "(as \(source)) \(text)")
        }
        say(.info, String(decoding: line, as: UTF8.self) + tail)
    }

    /// Logs `text` as the host's line about the plugin, and keeps it.
    private func say(_ level: Logger.Level, _ text: String) {
        Logger(label: PluginDescriptor.hostName).log(level: level, "plugin \(plugin): \(text)")
        log?.keep(level, source: PluginDescriptor.hostName, "plugin \(plugin): \(text)")
    }

    private func sayDropped() {
        say(.warning, "\(dropped) lines of its output dropped (more than \(Self.linesPerSecond) a second)")
        dropped = 0
    }

    /// The level, source and message of a JSON log line (``LineLogHandler``), or nil.
    private static func record(in line: [UInt8]) -> (Logger.Level, String, String)? {
        line.withUnsafeBytes { bytes in
            var reader = JSONReader(maxDepth: 4)
            guard let document = try? reader.parse(bytes), document.root.kind == .object,
                  let level = document.root.member(named: "level").flatMap({ Logger.Level(rawValue: $0.text) }),
                  let source = document.root.member(named: "source")?.text,
                  let message = document.root.member(named: "message")?.text
            else { return nil }
            return (level, source, message)
        }
    }
}
