// inbox: a data plugin in Swift. Its handler is async: it awaits (here a
// short pause standing in for real I/O), appends the message to a file, and
// decides: a message whose data says "silent": "true" is suppressed (kept in
// the inbox, nothing shown), any other goes on to the UI stage. Throwing
// would fail the message, as an RxGcm data observable that errors.
//
// Settings: path (the inbox file, required), delay_ms (the pause, default 5).
import Foundation
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

/// The inbox file; an actor, so that handlers running at once append whole lines.
actor Journal {
    private let handle: FileHandle

    init(path: String) throws {
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else { throw InboxError.cannotOpen(path) }
        self.handle = handle
    }

    func append(_ line: String) throws {
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }
}

enum InboxError: Error, CustomStringConvertible {
    case noPath
    case cannotOpen(String)

    var description: String {
        switch self {
        case .noPath: "the `path` setting is required (the inbox file)"
        case .cannotOpen(let path): "cannot open \(path) for writing"
        }
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Inbox.self) }
