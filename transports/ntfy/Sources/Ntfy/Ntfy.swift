// ntfy: a source in Swift that follows one ntfy topic. It reads
// `GET URL/TOPIC/json` (ntfy's JSON stream: one object a line, an `open`
// line first, then `keepalive` and `message` lines) and submits each line
// to the host as it came; the host reads ntfy records as they are
// (docs/ntfy.md). It connects again with a backoff whenever the stream
// fails or ends, and resumes with `since=` the id of the last message the
// host finished, kept in its state folder across restarts.
//
// Settings: url and topic (required); since (new or all), backoff_min and
// backoff_max (seconds), max_line (bytes), idle_timeout (seconds), retries.
#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import PushHostPlugin

final class NtfySource: SourcePlugin {
    static let name = "ntfy"
    static let version = "1.0.0"
    static let summary = "Source: follows an ntfy topic's JSON stream over HTTP and submits each line."
    static let usesStateFolder = true

    private let context: PluginContext
    private let settings: Settings

    init(context: PluginContext) throws {
        self.context = context
        settings = try Settings { context.setting($0) }
    }

    func run(_ intake: Intake) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .nanoseconds(Int64(settings.idleTimeout * 1e9))),
            decompression: .disabled)
        configuration.connectionPool = .init(idleTimeout: .seconds(1))
        // One try per connect: the waits between tries are the plugin's own backoff.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        await Follower(settings: settings, context: context, intake: intake).follow(client)
        try? await client.shutdown()
        try? await group.shutdownGracefully()
    }
}

/// One run of the plugin: connects, reads, submits, and connects again.
/// Lives in `run`'s task alone.
private final class Follower {
    let settings: Settings
    let context: PluginContext
    let intake: Intake
    var cursor: Cursor
    var backoff: Backoff
    /// The server's time in its first `open` line of this run, while no
    /// message was finished: a later connect asks for messages since then,
    /// so that none sent while it was away is missed.
    var openedAt: Int64?

    init(settings: Settings, context: PluginContext, intake: Intake) {
        self.settings = settings
        self.context = context
        self.intake = intake
        let folder = context.stateFolder
        if folder == nil {
            context.log("no state folder: a restart will start again with new messages only", level: .warning)
        }
        cursor = Cursor(folder: folder, url: settings.url, topic: settings.topic)
        backoff = Backoff(min: settings.backoffMin, max: settings.backoffMax)
        cursor.load(log: log)
    }

    /// How one connection ended.
    enum Ended {
        /// The host is stopping: return.
        case stopped
        /// Connect again after a wait; `delivered`: the host finished a line from it.
        case again(reason: String, delivered: Bool)
    }

    func follow(_ client: HTTPClient) async {
        while !Task.isCancelled {
            let url = settings.streamURL(since: since)
            let ended = await connect(client, url)
            guard case .again(let reason, let delivered) = ended, !Task.isCancelled else { return }
            if delivered { backoff.reset() }
            let wait = backoff.next()
            context.log("GET \(url): \(reason); connecting again in \(Self.seconds(wait)) s", level: .warning)
            do {
                try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)))
            } catch {
                return
            }
        }
    }

    /// `since` for the next connect: the last finished message's id; else
    /// the time of this run's first stream, once there was one; else the
    /// `since` setting (none: only new messages).
    var since: String? {
        if let id = cursor.id { return id }
        if let openedAt { return String(openedAt) }
        return settings.firstSince
    }

    func connect(_ client: HTTPClient, _ url: String) async -> Ended {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "pushhost-ntfy/\(NtfySource.version)")
        request.headers.add(name: "Accept", value: "application/x-ndjson")
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            guard response.status == .ok else {
                let redirect = (300..<400).contains(response.status.code) ? " (redirects are not followed)" : ""
                return .again(reason: "the server answered \(response.status.code) \(response.status.reasonPhrase)\(redirect)", delivered: false)
            }
            context.log("connected: GET \(url)", level: .info)
            return await read(response.body)
        } catch {
            if Task.isCancelled { return .stopped }
            return .again(reason: Self.describe(error, connecting: true), delivered: false)
        }
    }

    /// Reads the stream line by line, submitting each, until it ends or fails.
    func read(_ body: HTTPClientResponse.Body) async -> Ended {
        var lines = LineSplitter(maxLine: settings.maxLine)
        var delivered = false
        var pieces: [LineSplitter.Piece] = []
        do {
            for try await chunk in body {
                pieces.removeAll(keepingCapacity: true)
                chunk.withUnsafeReadableBytes { bytes in lines.feed(bytes) { pieces.append($0) } }
                for piece in pieces {
                    switch piece {
                    case .oversized(let size):
                        log("skipped a line of \(size) bytes: longer than max_line (\(settings.maxLine) bytes)", .warning)
                    case .line(let bytes):
                        guard !bytes.isEmpty else { continue }
                        switch await hand(bytes) {
                        case .stopped: return .stopped
                        case .finished: delivered = true
                        }
                    }
                }
            }
        } catch {
            if Task.isCancelled { return .stopped }
            return .again(reason: Self.describe(error, connecting: false) + Self.unfinished(lines), delivered: delivered)
        }
        return .again(reason: "the stream ended" + Self.unfinished(lines), delivered: delivered)
    }

    enum Handed { case finished, stopped }

    /// Submits one line, unchanged, as bytes (it came from outside: never a
    /// host event; one that is not UTF-8 the host rejects with a report
    /// line), submitting it again while the host answers retry; once the
    /// host finished a message with a good id, that id is kept.
    func hand(_ bytes: [UInt8]) async -> Handed {
        let fields = RecordFields.scan(bytes)
        var tries = 1
        while true {
            switch await intake.submit(bytes) {
            case .done, .rejected:
                finished(fields)
                return .finished
            case .stopped:
                return .stopped
            case .retry(let reportLine):
                // An empty report line: the host stopped before it began the record.
                if reportLine.isEmpty || Task.isCancelled { return .stopped }
                let what = fields.flatMap { $0.isMessage ? $0.id : nil }.map { "message " + String(decoding: $0, as: UTF8.self).debugDescription } ?? "a line"
                guard tries <= settings.retries else {
                    log("gave up on \(what) after \(tries) tries; going on with the next line", .error)
                    finished(fields)
                    return .finished
                }
                let wait = Backoff(min: settings.backoffMin, max: settings.backoffMax).ceiling(of: tries - 1)
                log("the host could not finish \(what); submitting it again in \(Self.seconds(wait)) s (try \(tries + 1) of \(settings.retries + 1))", .warning)
                tries += 1
                do {
                    try await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)))
                } catch {
                    return .stopped
                }
            }
        }
    }

    /// The host finished a line: a message's id becomes the point to resume
    /// from, when it is one ntfy could have made; an `open` line's time is
    /// noted while there is no such id.
    func finished(_ fields: RecordFields?) {
        guard let fields else { return }
        if fields.isOpen, cursor.id == nil, openedAt == nil, let time = fields.time, time > 0 {
            openedAt = time
        }
        guard fields.isMessage else { return }
        guard let id = fields.id, Settings.isMessageID(id) else {
            log("a message whose id is not 1 to 64 letters and digits (\(fields.id?.count ?? 0) bytes) is not kept as the point to resume from", .warning)
            return
        }
        cursor.store(String(decoding: id, as: UTF8.self), log: log)
    }

    func log(_ text: String, _ level: PluginContext.LogLevel) {
        context.log(text, level: level)
    }

    static func unfinished(_ lines: LineSplitter) -> String {
        lines.unfinished == 0 ? "" : " inside a line (\(lines.unfinished) bytes of it dropped)"
    }

    static func seconds(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    /// A failure in a few words: `connecting`, before the answer's head came.
    static func describe(_ error: any Error, connecting: Bool) -> String {
        let failed = connecting ? "cannot connect" : "the connection failed"
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return "cannot connect: no connection within 10 s"
            case .readTimeout: return "nothing read for idle_timeout"
            case .deadlineExceeded: return "no answer within 30 s"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(failed): \(error)"
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, let dns = error.dnsAError ?? error.dnsAAAAError {
                return "cannot resolve \(error.host): \(plain(dns))"
            }
            let reasons = Set(error.connectionErrors.map { plain($0.error) }).sorted()
            return "cannot connect to \(error.host):\(error.port)" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: ", "))
        case let error as HTTPParserError where error == .invalidEOFState:
            return "the server closed the connection in the middle of the stream"
        case let error as HTTPParserError:
            return "the server's HTTP is malformed (\(error))"
        default:
            return "\(failed): \(plain(error))"
        }
    }

    /// A system error as the system says it ("Connection refused").
    static func plain(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(NtfySource.self) }
