import Foundation
import Testing

/// Under a service manager (`NOTIFY_SOCKET`), the host speaks systemd's
/// notification protocol: `READY=1` (with a `STATUS=`) before it dispatches
/// anything, `STATUS=` as its counts change, `WATCHDOG=1` from the dispatch
/// thread every half of `WATCHDOG_USEC`, and `STOPPING=1` when a stop
/// begins. The tests play the manager: they bind the datagram socket
/// themselves and read what arrives.
@Suite struct ServiceNotifyTests {
    /// The two messages standard input holds before the host starts: READY=1
    /// comes before the first is dispatched, and STOPPING=1 before the
    /// plugins are destroyed and the host exits. The plugins see none of the
    /// manager's variables.
    @Test func readyComesBeforeTheFirstMessageAndStoppingBeforeTheExit() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let input = Pipe()
        input.fileHandleForWriting.write(Data(ndjson(#"{"message_id":"m1","data":{}}"#, #"{"message_id":"m2","data":{}}"#).utf8))
        try input.fileHandleForWriting.close()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")]
                + (try scratch.sender(socket: manager.address)),
            errorPath: scratch.file("stderr.log"), environment: manager.environment(["WATCHDOG_USEC": "200000"]), input: input)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        manager.drain()

        let texts = manager.texts
        let ready = try #require(texts.firstIndex { $0.has("READY=1") }, "\(texts)")
        let first = try #require(texts.firstIndex { $0.hasPrefix("X-DISPATCH=") }, "\(texts)")
        #expect(ready < first, "\(texts)")
        #expect(texts.filter { $0.hasPrefix("X-DISPATCH=") } == ["X-DISPATCH=m1", "X-DISPATCH=m2"])
        let stopping = try #require(texts.firstIndex { $0.has("STOPPING=1") }, "\(texts)")
        #expect(stopping > texts.lastIndex { $0.hasPrefix("X-DISPATCH=") }!, "\(texts)")
        #expect(stopping < texts.firstIndex(of: "X-DESTROY")!, "\(texts)")
        #expect(texts.filter { $0.has("READY=1") }.count == 1)
        #expect(texts.filter { $0.has("STOPPING=1") }.count == 1)
        #expect(texts[stopping].status == "stopping: standard input ended; 2 records handled (0 failed, 0 rejected)")
        // create ran after the host took the variables out of its environment.
        #expect(texts.first == "X-ENV=unset unset unset", "\(texts)")
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered", "delivered"])
    }

    @Test func sigtermOnAWatchingHostSaysStoppingAfterTheSignal() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let host = try scratch.startWatching(try scratch.sender(socket: manager.address), environment: manager.environment())
        #expect(manager.waitFor { $0.has("READY=1") }, "\(manager.texts)\n\(host.stderr)")
        #expect(!manager.texts.contains { $0.has("STOPPING=1") })
        host.send(SIGTERM)
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        manager.drain()
        let texts = manager.texts
        let stopping = try #require(texts.firstIndex { $0.has("STOPPING=1") }, "\(texts)")
        #expect(texts.firstIndex { $0.has("READY=1") }! < stopping)
        #expect(stopping < texts.firstIndex(of: "X-DESTROY")!)
        #expect(texts[stopping].status == "stopping: SIGINT or SIGTERM; records under way get --stop-timeout 5.0s")
        #expect(texts.filter { $0.has("STOPPING=1") }.count == 1)
    }

    /// WATCHDOG_USEC=200000: a ping every 100 ms, while idle too.
    @Test func theWatchdogIsFedEveryHalfInterval() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let host = try scratch.startWatching(
            try scratch.sender(socket: manager.address), environment: manager.environment(["WATCHDOG_USEC": "200000"]))
        #expect(manager.waitFor { $0.has("READY=1") }, "\(host.stderr)")
        let pings = manager.waitFor(timeout: .milliseconds(1200)) { texts in texts.filter { $0 == "WATCHDOG=1" }.count >= 4 }
        #expect(pings, "\(manager.texts)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// A WATCHDOG_PID that is not the host's means the watchdog is another
    /// process's business: no pings.
    @Test func aWatchdogForAnotherProcessIsNotFed() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let host = try scratch.startWatching(
            try scratch.sender(socket: manager.address),
            environment: manager.environment(["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]))
        #expect(manager.waitFor { $0.has("READY=1") }, "\(host.stderr)")
        let pinged = manager.waitFor(timeout: .milliseconds(600)) { $0.contains("WATCHDOG=1") }
        #expect(!pinged, "\(manager.texts)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// WATCHDOG_PID naming the host itself (a shell that execs it): pings.
    @Test func aWatchdogForThisProcessIsFed() throws {
        let scratch = try Scratch()
        try scratch.spool.create()
        let manager = try NotifyListener()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"WATCHDOG_PID=$$; export WATCHDOG_PID; exec "$0" "$@""#, Paths.pushhost,
            "run", "--state", scratch.file("state"), "--watch", scratch.spool.path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(manager.environment(["WATCHDOG_USEC": "200000"])) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        #expect(manager.waitFor { $0.contains("WATCHDOG=1") }, "\(manager.texts)")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        manager.drain()
        #expect(manager.texts.has("STOPPING=1"), "\(manager.texts)")
    }

    /// A handler that hangs (no --handler-timeout) stops the pings, since
    /// the dispatch thread sends them: the manager's watchdog then acts.
    @Test func aHandlerThatHangsStopsThePings() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let host = try scratch.startWatching(
            try scratch.sender(socket: manager.address) + ["--handler-timeout", "0"],
            environment: manager.environment(["WATCHDOG_USEC": "200000"]))
        #expect(manager.waitFor { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 }, "\(manager.texts)\n\(host.stderr)")
        try scratch.spool.drop("slow", #"{"message_id":"slow","data":{"hang_ms":"60000"}}"#)
        #expect(manager.waitFor { $0.contains("X-DISPATCH=slow") }, "\(manager.texts)\n\(host.stderr)")
        // Any ping after the handler began would come from another thread.
        let pinged = manager.waitFor(timeout: .seconds(1)) { texts in
            texts.drop { $0 != "X-DISPATCH=slow" }.contains("WATCHDOG=1")
        }
        #expect(!pinged, "\(manager.texts)")
        host.send(SIGKILL)
        #expect(host.waitForExit() == .signal(SIGKILL))
    }

    /// A burst the host takes in one turn of its loop (lines of standard
    /// input read at once, files waiting in the spool at start), 50 ms a
    /// message: the pings go on between the messages.
    @Test(arguments: ["stdin", "spool"])
    func aLongBurstKeepsTheWatchdogFed(_ source: String) throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let messages = (1...16).map { #"{"message_id":"b\#($0)","data":{"hang_ms":"50"}}"# }
        let environment = manager.environment(["WATCHDOG_USEC": "200000"])
        let host: HostProcess
        if source == "stdin" {
            let input = Pipe()
            input.fileHandleForWriting.write(Data((messages.joined(separator: "\n") + "\n").utf8))
            try input.fileHandleForWriting.close()
            host = try HostProcess(
                ["run", "--state", scratch.file("state")] + (try scratch.sender(socket: manager.address)),
                errorPath: scratch.file("stderr.log"), environment: environment, input: input)
        } else {
            try scratch.spool.create()
            for (index, message) in messages.enumerated() { try scratch.spool.drop(String(format: "f%02d", index), message) }
            host = try scratch.startHost(try scratch.sender(socket: manager.address), environment: environment)
        }
        #expect(manager.waitFor { $0.contains("X-DISPATCH=b16") }, "\(manager.texts)\n\(host.stderr)")
        let texts = manager.texts
        let burst = texts.drop { $0 != "X-DISPATCH=b1" }.prefix { $0 != "X-DISPATCH=b16" }
        // 16 × 50 ms = 0.8 s: a ping every 100 ms makes about 8.
        #expect(burst.filter { $0 == "WATCHDOG=1" }.count >= 4, "\(texts)")
        if source == "stdin" {
            #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        } else {
            #expect(host.stop() == .status(0), "\(host.stderr)")
        }
    }

    /// `@name`: an abstract socket, whose address is exactly the name's bytes.
    @Test func anAbstractSocket() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener(abstract: true)
        #expect(manager.address.hasPrefix("@pushhost-test-"))
        let result = try scratch.run(
            try scratch.sender(socket: nil), stdin: ndjson(#"{"message_id":"m1","data":{}}"#),
            environment: manager.environment(["WATCHDOG_USEC": "200000"]))
        #expect(result.status == 0, "\(result.stderr)")
        manager.drain()
        let texts = manager.texts
        #expect(texts.first?.has("READY=1") == true, "\(texts)")
        #expect(texts.contains("WATCHDOG=1"), "\(texts)")
    }

    /// A plugin refused (a file that is no plugin): a setup error, never READY=1.
    @Test func aRefusedPluginNeverSaysReady() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let bad = try scratch.write("bad.so", "not a shared library\n")
        let result = try scratch.run(
            try scratch.sender(socket: manager.address) + ["--plugin", bad], stdin: ndjson(#"{"message_id":"m1","data":{}}"#),
            environment: manager.environment(["WATCHDOG_USEC": "200000"]))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refused plugin \(bad)"), "\(result.stderr)")
        manager.drain()
        #expect(!manager.texts.contains { $0.has("READY=1") || $0 == "WATCHDOG=1" }, "\(manager.texts)")
        #expect(!manager.texts.contains { $0.hasPrefix("X-DISPATCH=") })
    }

    /// A source plugin (Tests/Fixtures/plugins/nostart.c) whose start fails:
    /// a setup error after the plugins were created, still no READY=1, and
    /// the manager learns why.
    @Test func aSourceThatDoesNotStartNeverSaysReady() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let source = try scratch.plugin("nostart.so", PluginSource.fixture("nostart"))
        let result = try scratch.run(["--plugin", source], stdin: "", environment: manager.environment())
        #expect(result.status == 1, "\(result.stderr)")
        manager.drain()
        #expect(manager.texts == ["STATUS=failed: plugin nostart: its source did not start (start returned -1)"])
    }

    /// NOTIFY_SOCKET naming a path where nothing listens: the host runs as
    /// without it (the failed sends are a debug line, not shown by default).
    @Test func nobodyListeningChangesNothing() throws {
        let scratch = try Scratch()
        let nowhere = "/tmp/pushhost-test-nobody-\(UInt32.random(in: 0...UInt32.max))"
        let result = try scratch.run(
            try scratch.probe("bg", [.background]),
            stdin: ndjson(#"{"message_id":"m1","data":{}}"#, #"{"message_id":"m2","data":{}}"#),
            environment: ["NOTIFY_SOCKET": nowhere, "WATCHDOG_USEC": "200000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(scratch.probeCalls() == ["bg background m1", "bg background m2"])
    }

    /// The status names the plugins and what the host reads, then counts
    /// the records handled as they change.
    @Test func theStatusNamesThePluginCountAndTheRecordsHandled() throws {
        let scratch = try Scratch()
        let manager = try NotifyListener()
        let host = try scratch.startWatching(
            try scratch.sender(socket: manager.address) + (try scratch.probe("bg", [.background])),
            environment: manager.environment())
        #expect(manager.waitFor { $0.has("READY=1") }, "\(host.stderr)")
        let ready = try #require(manager.texts.first { $0.has("READY=1") })
        #expect(ready.status == "dispatching: 2 plugins; reading standard input and the spool \(scratch.spool.path)")

        try scratch.spool.drop("one", #"{"message_id":"m1","data":{}}"#)
        let one = "dispatching: 2 plugins; 1 record handled (0 failed, 0 rejected)"
        #expect(manager.waitFor { $0.contains { $0.status == one } }, "\(manager.texts)")
        try scratch.spool.drop("two", "not JSON\n")
        let two = "dispatching: 2 plugins; 2 records handled (0 failed, 1 rejected)"
        #expect(manager.waitFor { $0.contains { $0.status == two } }, "\(manager.texts)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        // Only changes are told, each once.
        #expect(manager.texts.filter { $0.status == one }.count == 1)
    }
}

extension String {
    /// Whether this datagram holds the line `line` (`READY=1`).
    func has(_ line: String) -> Bool {
        split(separator: "\n").contains { $0 == line }
    }

    /// The value of this datagram's `STATUS=` line, if it has one.
    var status: String? {
        split(separator: "\n").first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst("STATUS=".count)) }
    }
}

extension Array where Element == String {
    /// Whether any datagram holds the line `line`.
    func has(_ line: String) -> Bool {
        contains { $0.has(line) }
    }
}

extension Scratch {
    /// The `sender` plugin (Tests/Fixtures/plugins/sender.c): a background
    /// plugin that sends each message's id (`X-DISPATCH=ID`) as a datagram
    /// to the socket at its `socket` setting (`socket`: nil for none), then
    /// sleeps `data.hang_ms` milliseconds when the message says so. Its
    /// `create` sends `X-ENV=` and the values of NOTIFY_SOCKET, WATCHDOG_USEC
    /// and WATCHDOG_PID it sees (`unset` when not set), and its `destroy`
    /// sends `X-DESTROY`.
    func sender(socket: String?) throws -> [String] {
        let path = try plugin("sender.so", PluginSource.fixture("sender"))
        return ["--plugin", path] + (socket.map { ["--set", "sender.socket=\($0)"] } ?? [])
    }
}

/// The service manager's end: a datagram socket bound at a short path under
/// /tmp (`sun_path` holds 108 bytes; a scratch folder's path may be longer)
/// or at an abstract name, and a thread that reads every datagram as it
/// comes (the kernel queues only a few for a reader that lags).
final class NotifyListener: @unchecked Sendable {
    /// What NOTIFY_SOCKET says: the path, or `@` and the abstract name.
    let address: String
    private let inbox: Inbox
    private let folder: String?

    /// The datagrams read, and the thread's end.
    private final class Inbox: @unchecked Sendable {
        let fd: Int32
        let lock = NSLock()
        var texts: [String] = []
        var done = false
        let ended = DispatchSemaphore(value: 0)

        init(fd: Int32) { self.fd = fd }

        var isDone: Bool { lock.withLock { done } }

        func read() {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while !isDone {
                var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&watched, 1, 20) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count >= 0 {
                    let text = String(decoding: buffer[..<count], as: UTF8.self)
                    lock.withLock { texts.append(text) }
                }
            }
            ended.signal()
        }
    }

    init(abstract: Bool = false) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var name: [UInt8]
        if abstract {
            address = "@pushhost-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            folder = nil
            name = [0] + Array(address.utf8.dropFirst())
        } else {
            var template = Array("/tmp/phn-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                close(fd)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            folder = String(cString: made)
            address = folder! + "/notify"
            name = Array(address.utf8) + [0]
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let failure = errno
            close(fd)
            if let folder { rmdir(folder) }
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        inbox = Inbox(fd: fd)
        let inbox = inbox
        Thread.detachNewThread { inbox.read() }
    }

    deinit {
        inbox.lock.withLock { inbox.done = true }
        inbox.ended.wait()
        close(inbox.fd)
        if let folder {
            unlink(address)
            rmdir(folder)
        }
    }

    /// The environment that points the host here, with `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        extra.merging(["NOTIFY_SOCKET": address]) { $1 }
    }

    /// Every datagram read so far, in order of arrival.
    var texts: [String] { inbox.lock.withLock { inbox.texts } }

    /// Waits until every datagram sent before this call was read: sends
    /// `X-END` to the socket itself and waits for it (a datagram socket
    /// queues in order of sending). Call it once the host exited.
    func drain() {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(sender) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let name = address.hasPrefix("@") ? [0] + Array(address.utf8.dropFirst()) : Array(address.utf8) + [0]
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count)
        let count = inbox.lock.withLock { inbox.texts.count }
        let sent = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(sender, "X-END", 5, 0, $0, length) }
        }
        #expect(sent == 5, "sendto: \(String(cString: strerror(errno)))")
        #expect(waitFor { $0.dropFirst(count).contains("X-END") }, "X-END never came back")
        inbox.lock.withLock { inbox.texts.removeAll { $0 == "X-END" } }
    }

    /// Waits until `condition` holds for the datagrams read; false at the timeout.
    func waitFor(timeout: Duration = .seconds(20), _ condition: ([String]) -> Bool) -> Bool {
        eventually(timeout: timeout) { condition(texts) }
    }
}
