import Foundation
import Testing

/// A Swift plugin package as a third-party author writes it: a folder of its
/// own under /tmp, outside this repository, with a Package.swift that
/// depends on the SDK package (`sdk/`, product `PushHostPlugin`) by path, a
/// `.dynamic` library product per plugin, and plain Swift sources. Built once
/// with `swift build` and a cache of its own (empty), on first use, for every
/// test of the process; removed when the process exits.
///
/// The plugins (each writes tab-separated lines to the file at its `log`
/// setting, when given):
/// - `slow` (data): waits `data.delay_ms`, else its `delay_ms` setting
///   (default 0), then writes `done ID` and continues; when `data.fail` is
///   `yes` it writes `throw ID` and throws an error whose description is
///   `boom for ID`.
/// - `shelf` (screen, targets `["shelf"]`): `target|mismatch ID TARGET TITLE BODY`;
///   its `onTarget` throws for a message whose data says `"jam":"yes"`
///   (`-` for a missing field).
/// - `tokens` (token): `token NEW PREVIOUS CURRENT`, CURRENT being the
///   context's `currentToken` during the call (`-` for nil).
/// - `grumpy` (background): its init throws `grumpy will not start: REASON`
///   (REASON from the `reason` setting, default `no coffee`).
/// - `quick` (data): waits `data.sleep_ms` when given (in a child task,
///   `async let`, when `data.child` is `yes`), then gives the
///   verdict `data.verdict` (continue, the default, suppress, or throw,
///   which throws `refused ID`), writing `VERDICT ID THREAD` first: THREAD
///   is `host-thread` when the handler runs on the thread that made the
///   plugin (the host's), else `other-thread`.
/// - `keeper` (data, background): writes `EVENT FIELDS...` (see
///   `keeperFields`) for each message it gets, `data` and `background`, and
///   `copy` for `Message(json: message.json)`; keeps every message, and
///   writes the fields again once the handler is over: `data-later` from a
///   detached task 20 ms after its data handler (which first waits
///   `data.sleep_ms` when given) continued, `background-later` at shutdown,
///   followed by `equal` when the kept message equals the copy.
/// - `feeder` (source, with a state folder): its `run` writes `folder yes`
///   (or `folder no`) when its state folder exists, then submits its
///   `count` setting's messages `f-1`, `f-2` ... (each with data `n`),
///   then, when `event` is set, the record `{"pushhost":"background"}`
///   unmarked and then marked as its own host event, writing `ID RESULT`
///   for each (`done`, `retry`, `rejected`, `stopped`), then `ran N`; it
///   writes `stopped after N` instead when a submit says the host stopped.
///   With `together` set to `yes`, it submits them all at once, each in a
///   child task, writing each result as it comes.
/// - `marker` (interceptor): when `data.mark` is `yes`, sets `data.marked` to
///   `"yes"`; when `text`, to the text of `data.text` (as a JSON string);
///   when `bad`, tries to set it to invalid JSON; when `remove`,
///   removes `data.mark`; each writes `set ID RESULT MARKED MARK` (the last
///   two read back through `chain.message`). Stops the message with `.suppressed("told to")` when
///   `data.stop` is `suppress`, `.failed("told to")` when `fail`. Otherwise
///   waits `data.sleep_ms` when given, writes `proceed ID THREAD` (THREAD as
///   for `quick`), proceeds, and writes `outcome ID STATUS REASON BY
///   REPORT-LINE` (ID read from `chain.message` after proceeding); with
///   `data.again` `yes` it proceeds once more and writes `again ID SAME`
///   (whether that outcome equals the first); with `data.late_stop` `yes`
///   it returns `.suppressed("too late")` instead of the outcome.
/// - `pool` (data): keeps Dispatch's thread pool busy (PoolPlugin.swift).
/// - `lingerer` (data, source): handlers and a `run` that end late, or
///   never, after their cancellation (LingererPlugin.swift).
struct PluginPackage: Sendable {
    /// The package folder.
    let root: String
    /// Where `swift build` put the libraries.
    let products: String
    /// How long `swift build` took.
    let buildTime: Duration
    /// What `swift build` said.
    let buildOutput: String

    /// `lib<name>.so` of one of the package's plugins.
    func library(_ name: String) -> String { products + "/lib\(name).so" }

    /// The package, built on first use; a failed build fails every test that asks.
    static func shared() throws -> PluginPackage { try built.get() }

    private static let built = Result { try build() }

    /// The package's files, by path relative to its root.
    static let files: [String: String] = {
        var files = ["Package.swift": manifest]
        for plugin in plugins {
            files["Sources/\(plugin.target)/\(plugin.target).swift"] = plugin.source + "\n" + lineFile
        }
        return files
    }()

    /// The plugins: product name, target name, source.
    static let plugins: [(name: String, target: String, source: String)] = [
        ("slow", "Slow", slow), ("shelf", "Shelf", shelf), ("tokens", "Tokens", tokens), ("grumpy", "Grumpy", grumpy),
        ("quick", "Quick", quick), ("keeper", "Keeper", keeper), ("tapper", "Tapper", tapper), ("marker", "Marker", marker),
        ("feeder", "Feeder", feeder), ("pool", "Pool", pool), ("lingerer", "Lingerer", lingerer),
    ]

    static let manifest = """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: "my-plugins",
            products: [
        \(plugins.map { #"        .library(name: "\#($0.name)", type: .dynamic, targets: ["\#($0.target)"]),"# }.joined(separator: "\n"))
            ],
            dependencies: [
                .package(path: \(String(reflecting: Paths.packageRoot.appendingPathComponent("sdk").path))),
            ],
            targets: [
        \(plugins.map { #"        .target(name: "\#($0.target)", dependencies: [.product(name: "PushHostPlugin", package: "sdk")]),"# }.joined(separator: "\n"))
            ]
        )

        """

    static let slow = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Waits, then lets the message go on; fails it when asked to.
        final class Slow: DataPlugin {
            static let name = "slow"
            static let version = "0.1.0"
            static let summary = "Waits data.delay_ms (or its delay_ms setting), then continues."

            private let delay: Int
            private let log: LineFile?

            init(context: PluginContext) throws {
                delay = Int(context.setting("delay_ms") ?? "") ?? 0
                log = context.setting("log").map(LineFile.init(path:))
            }

            func onData(_ message: Message) async throws -> Verdict {
                try await Task.sleep(for: .milliseconds(Int(message.data["delay_ms"] ?? "") ?? delay))
                if message.data["fail"] == "yes" {
                    log?.append("throw", message.id)
                    throw Boom(id: message.id)
                }
                log?.append("done", message.id)
                return .continue
            }
        }

        struct Boom: Error, CustomStringConvertible {
            let id: String
            var description: String { "boom for \\(id)" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Slow.self) }

        """

    static let shelf = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// A screen for the "shelf" target that writes down what it is shown.
        final class Shelf: ScreenPlugin {
            static let name = "shelf"
            static let version = "0.1.0"
            static let summary = "Foreground screen for the shelf target."
            static let targets = ["shelf"]

            private let log: LineFile

            init(context: PluginContext) throws {
                guard let path = context.setting("log") else { throw NoLog() }
                log = LineFile(path: path)
            }

            func onTarget(_ message: Message) throws {
                if message.data["jam"] == "yes" { throw Jammed(id: message.id) }
                write("target", message)
            }
            func onMismatch(_ message: Message) { write("mismatch", message) }

            private func write(_ event: String, _ message: Message) {
                log.append(event, message.id, message.target ?? "-", message.title ?? "-", message.body ?? "-")
            }
        }

        struct NoLog: Error, CustomStringConvertible {
            var description: String { "the log setting is required" }
        }

        struct Jammed: Error, CustomStringConvertible {
            let id: String
            var description: String { "the shelf jammed on \\(id)" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Shelf.self) }

        """

    static let tokens = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Writes down every new registration token.
        final class Tokens: TokenPlugin {
            static let name = "tokens"
            static let version = "0.1.0"
            static let summary = "Writes down new registration tokens."

            private let context: PluginContext
            private let log: LineFile

            init(context: PluginContext) throws {
                guard let path = context.setting("log") else { throw NoLog() }
                self.context = context
                log = LineFile(path: path)
            }

            func onToken(_ token: String, previous: String?) {
                log.append("token", token, previous ?? "-", context.currentToken ?? "-")
            }
        }

        struct NoLog: Error, CustomStringConvertible {
            var description: String { "the log setting is required" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Tokens.self) }

        """

    static let grumpy = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Never starts.
        final class Grumpy: BackgroundPlugin {
            static let name = "grumpy"
            static let version = "0.1.0"

            init(context: PluginContext) throws {
                throw NotToday(reason: context.setting("reason") ?? "no coffee")
            }

            func onBackground(_ message: Message) {}
        }

        struct NotToday: Error, CustomStringConvertible {
            let reason: String
            var description: String { "grumpy will not start: \\(reason)" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Grumpy.self) }

        """

    static let quick = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Gives the verdict data.verdict, at once or after data.sleep_ms.
        final class Quick: DataPlugin {
            static let name = "quick"
            static let version = "0.1.0"
            static let summary = "Gives data.verdict at once, or after data.sleep_ms."

            private let log: LineFile?
            private let hostThread = pthread_self()

            init(context: PluginContext) throws {
                log = context.setting("log").map(LineFile.init(path:))
            }

            func onData(_ message: Message) async throws -> Verdict {
                if let sleep = message.data["sleep_ms"].flatMap({ Int($0) }) {
                    if message.data["child"] == "yes" {
                        async let slept: Void = Task.sleep(for: .milliseconds(sleep))
                        try await slept
                    } else {
                        try await Task.sleep(for: .milliseconds(sleep))
                    }
                }
                let verdict = message.data["verdict"] ?? "continue"
                log?.append(verdict, message.id, pthread_equal(pthread_self(), hostThread) != 0 ? "host-thread" : "other-thread")
                switch verdict {
                case "suppress": return .suppress
                case "throw": throw Refused(id: message.id)
                default: return .continue
                }
            }
        }

        struct Refused: Error, CustomStringConvertible {
            let id: String
            var description: String { "refused \\(id)" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Quick.self) }

        """

    static let feeder = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Submits its `count` setting's messages, then host events when asked.
        final class Feeder: SourcePlugin {
            static let name = "feeder"
            static let version = "0.1.0"
            static let summary = "Submits count messages f-1, f-2, ..."
            static let usesStateFolder = true

            private let context: PluginContext
            private let count: Int
            private let event: Bool
            private let together: Bool
            private let log: LineFile?

            init(context: PluginContext) throws {
                self.context = context
                count = Int(context.setting("count") ?? "") ?? 0
                event = context.setting("event") == "yes"
                together = context.setting("together") == "yes"
                log = context.setting("log").map(LineFile.init(path:))
            }

            func run(_ intake: Intake) async throws {
                log?.append("folder", context.stateFolder.map { FileManager.default.fileExists(atPath: $0) ? "yes" : "no" } ?? "none")
                var records = (1...max(count, 1)).prefix(count).map { ("f-\\($0)", #"{"message_id":"f-\\#($0)","data":{"n":"\\#($0)"}}"#, false) }
                if event {
                    records.append(("event", #"{"pushhost":"background"}"#, false))
                    records.append(("own-event", #"{"pushhost":"background"}"#, true))
                }
                if together {
                    // Every submit at once: those the host has no room for wait.
                    await withTaskGroup(of: Void.self) { group in
                        for (id, record, isHostEvent) in records {
                            group.addTask { [log] in log?.append(id, Self.word(await intake.submit(record, isHostEvent: isHostEvent))) }
                        }
                    }
                    log?.append("ran", String(records.count))
                    return
                }
                if context.setting("odd") == "yes" {
                    // Bytes as a transport gave them: not UTF-8, then nothing at all.
                    log?.append("not-utf8", Self.word(await intake.submit([0x7B, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])))
                    log?.append("empty", Self.word(await intake.submit([UInt8]())))
                    log?.append("empty-text", Self.word(await intake.submit("")))
                }
                var ran = 0
                for (id, record, isHostEvent) in records {
                    let result = await intake.submit(record, isHostEvent: isHostEvent)
                    if result == .stopped {
                        log?.append("stopped after", String(ran))
                        return
                    }
                    log?.append(id, Self.word(result))
                    ran += 1
                }
                log?.append("ran", String(ran))
            }

            static func word(_ result: Submission) -> String {
                switch result {
                case .done: "done"
                case .retry: "retry"
                case .rejected: "rejected"
                case .stopped: "stopped"
                }
            }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Feeder.self) }

        """

    static let keeper = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Writes what it reads of every message, then again once the handler is over.
        final class Keeper: DataPlugin, BackgroundPlugin {
            static let name = "keeper"
            static let version = "0.1.0"
            static let summary = "Reads messages during and after their handlers."

            private let log: LineFile
            private let keys: [String]
            private let paths: [String]
            private let kept = Mutex<[Message]>([])
            private let later = DispatchGroup()

            init(context: PluginContext) throws {
                guard let path = context.setting("log") else { throw NoLog() }
                log = LineFile(path: path)
                keys = (context.setting("keys") ?? "").split(separator: ",").map(String.init)
                paths = (context.setting("paths") ?? "").split(separator: ",").map(String.init)
            }

            func onData(_ message: Message) async throws -> Verdict {
                if let sleep = message.data["sleep_ms"].flatMap({ Int($0) }) {
                    try await Task.sleep(for: .milliseconds(sleep))
                }
                log.append(["data"] + fields(of: message))
                later.enter()
                Task.detached { [self] in
                    try? await Task.sleep(for: .milliseconds(20))
                    log.append(["data-later"] + fields(of: message))
                    later.leave()
                }
                return .continue
            }

            func onBackground(_ message: Message) {
                log.append(["background"] + fields(of: message))
                log.append(["copy"] + fields(of: Message(json: message.json)))
                kept.withLock { $0.append(message) }
            }

            func shutdown() {
                later.wait()
                for message in kept.withLock({ $0 }) {
                    log.append(["background-later"] + fields(of: message) + [message == Message(json: message.json) ? "equal" : "different"])
                }
            }

            /// id, target, priority, title, body, data[KEY] for each of the
            /// keys setting, value(at: PATH) for each of the paths setting, the
            /// data members, the notification members (KEY=VALUE, joined by
            /// `,`), `COUNT/DICTIONARY-COUNT/NOTIFICATION-IS-EMPTY` of data, json;
            /// `-` for nil.
            private func fields(of message: Message) -> [String] {
                [message.id, message.target ?? "-", message.priority ?? "-", message.title ?? "-", message.body ?? "-"]
                    + keys.map { message.data[$0] ?? "-" }
                    + paths.map { message.value(at: $0) ?? "-" }
                    + [message.data, message.notification].map { $0.map { "\\($0.key)=\\($0.value)" }.joined(separator: ",") }
                    + ["\\(message.data.count)/\\(message.data.dictionary.count)/\\(message.notification.isEmpty)"]
                    + [message.json]
            }
        }

        struct NoLog: Error, CustomStringConvertible {
            var description: String { "the log setting is required" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Keeper.self) }

        """

    static let marker = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Marks, stops, holds and passes on messages as their data says; writes down each outcome.
        final class Marker: Interceptor {
            static let name = "marker"
            static let version = "0.1.0"
            static let summary = "Interceptor: marks, stops or holds messages as their data says."

            private let log: LineFile?
            private let hostThread = pthread_self()

            init(context: PluginContext) throws {
                log = context.setting("log").map(LineFile.init(path:))
            }

            func intercept(_ chain: Chain) async -> Outcome {
                let message = chain.message
                switch message.data["mark"] {
                case "yes": wrote(chain, chain.set("data.marked", to: "yes"))
                case "text": wrote(chain, chain.set("data.marked", to: message.data["text"] ?? ""))
                case "bad": wrote(chain, chain.set("data.marked", json: "{nope"))
                case "remove": wrote(chain, chain.remove("data.mark"))
                default: break
                }
                switch message.data["stop"] {
                case "suppress": return .suppressed("told to")
                case "fail": return .failed("told to")
                default: break
                }
                if let sleep = message.data["sleep_ms"].flatMap({ Int($0) }) {
                    try? await Task.sleep(for: .milliseconds(sleep))
                }
                log?.append("proceed", message.id, pthread_equal(pthread_self(), hostThread) != 0 ? "host-thread" : "other-thread")
                let outcome = await chain.proceed()
                log?.append("outcome", chain.message.id, "\\(outcome.status)", outcome.reason ?? "-", outcome.by ?? "-", outcome.reportLine ?? "-")
                if message.data["again"] == "yes" {
                    log?.append("again", message.id, "\\(await chain.proceed() == outcome)")
                }
                return message.data["late_stop"] == "yes" ? .suppressed("too late") : outcome
            }

            private func wrote(_ chain: Chain, _ done: Bool) {
                let message = chain.message
                log?.append("set", message.id, "\\(done)", message.data["marked"] ?? "-", message.data["mark"] ?? "-")
            }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Marker.self) }

        """

    /// Each plugin's own copy of a small helper (a plugin is one module).
    static let lineFile = """
        /// Appends tab-separated lines to a file, one writer at a time.
        final class LineFile: Sendable {
            private let path: String
            private let lock = Mutex(())

            init(path: String) { self.path = path }

            func append(_ fields: String...) { append(fields) }

            func append(_ fields: [String]) {
                let line = Data((fields.joined(separator: "\\t") + "\\n").utf8)
                lock.withLock { _ in
                    guard FileManager.default.fileExists(atPath: path) || FileManager.default.createFile(atPath: path, contents: nil),
                          let handle = FileHandle(forWritingAtPath: path) else { return }
                    defer { try? handle.close() }
                    _ = try? handle.seekToEnd()
                    try? handle.write(contentsOf: line)
                }
            }
        }

        """

    /// Writes the package into a new folder under /tmp and builds it.
    private static func build() throws -> PluginPackage {
        var template = Array("/tmp/pushhost-swift-plugins-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let root = String(cString: made)
        PackageCleanup.root = root
        atexit { PackageCleanup.remove() }
        for (path, text) in files {
            let url = URL(fileURLWithPath: root).appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
        let start = ContinuousClock.now
        let result = try Command.run("swift", ["build", "--cache-path", root + "/.cache"], directory: root)
        let buildTime = ContinuousClock.now - start
        guard result.status == 0 else {
            throw PackageBuildError(output: result.stdout + result.stderr)
        }
        return PluginPackage(
            root: root, products: root + "/.build/debug", buildTime: buildTime, buildOutput: result.stdout + result.stderr)
    }
}

/// The package folder, removed at exit (no test may still use it then).
private enum PackageCleanup {
    nonisolated(unsafe) static var root: String?

    static func remove() {
        if let root { try? FileManager.default.removeItem(atPath: root) }
    }
}

struct PackageBuildError: Error, CustomStringConvertible {
    let output: String
    var description: String { "swift build of the plugin package failed:\n\(output)" }
}

extension Scratch {
    /// The tab-separated lines a package plugin wrote to `name`, each split.
    func lines(_ name: String) -> [[String]] {
        read(name).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// One push payload in the GCM shape: `data` (with the target under
/// `rx_gcm_key_target`) and, when given, `notification`.
func gcm(_ id: String, target: String? = nil, data: [String: String] = [:], notification: [String: String]? = nil) -> String {
    var fields = data
    if let target { fields["rx_gcm_key_target"] = target }
    var object: [String: Any] = ["message_id": id, "data": fields]
    if let notification { object["notification"] = notification }
    let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: json ?? Data(), as: UTF8.self)
}
