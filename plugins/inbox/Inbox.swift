// inbox: a data plugin in Swift. Its handler is async: it awaits (here a
// short pause standing in for real I/O), appends the message to a file, and
// decides: a message whose data says "silent": "true" is suppressed (kept in
// the inbox, nothing shown), any other goes on to the UI stage. Throwing
// would fail the message, as an RxGcm data observable that errors.
//
// Settings: path (the inbox file, required), delay_ms (the pause, default 5).
#if canImport(Glibc)
import Glibc
#endif
import PushHostPlugin

final class Inbox: DataPlugin {
    static let name = "inbox"
    static let version = "1.0.0"
    static let summary = "Data stage in Swift: files every message in an inbox; suppresses silent ones."

    private let journal: Journal
    private let delay: Duration

    init(context: PluginContext) throws {
        guard let path = context.setting("path") else { throw InboxError.noPath }
        journal = try Journal(path: path)
        delay = .milliseconds(Int(context.setting("delay_ms") ?? "") ?? 5)
    }

    func onData(_ message: Message) async throws -> Verdict {
        try await Task.sleep(for: delay)
        try await journal.append("\(message.id)\t\(message.target ?? "-")\t\(message.title ?? "-")\n")
        return message.data["silent"] == "true" ? .suppress : .continue
    }
}

/// The inbox file, opened for appending; an actor, so that handlers running
/// at once append whole lines.
actor Journal {
    private let fd: Int32

    init(path: String) throws {
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw InboxError.cannotOpen(path) }
    }

    deinit { close(fd) }

    func append(_ line: String) throws {
        var line = line
        let written = line.withUTF8 { write(fd, $0.baseAddress, $0.count) }
        guard written == line.utf8.count else { throw InboxError.cannotWrite }
    }
}

enum InboxError: Error, CustomStringConvertible {
    case noPath
    case cannotOpen(String)
    case cannotWrite

    var description: String {
        switch self {
        case .noPath: "the `path` setting is required (the inbox file)"
        case .cannotOpen(let path): "cannot open \(path) for writing"
        case .cannotWrite: "cannot write to the inbox"
        }
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Inbox.self) }
