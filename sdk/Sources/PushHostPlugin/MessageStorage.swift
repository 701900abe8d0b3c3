#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Synchronization

/// What a `Message` reads: the host's message while the host lends it, then,
/// if the plugin kept the message, a copy of its JSON.
///
/// Every read takes the lock, so a read on another thread never overlaps
/// the moment the loan ends (`endBorrow`): it sees the host's message whole,
/// or the copy.
final class MessageStorage: Sendable {
    /// Where the fields come from. The host's table and accessors may be
    /// used from any thread, hence `@unchecked Sendable`.
    private enum Source: @unchecked Sendable {
        /// The host's message, through the plugin's host table.
        case host(UnsafePointer<ph_host>, OpaquePointer)
        /// The normalized message as compact JSON, copied.
        case copy(String)
    }

    /// The source, and the fields kept once read.
    private struct State {
        var source: Source
        var id: String?
        var target: String??
        /// The host's JSON, once read (a copy is its own JSON).
        var json: String?
    }

    private let state: Mutex<State>

    /// The host's message `handle`, lent until the handler is over.
    init(host: UnsafePointer<ph_host>, handle: OpaquePointer) {
        state = Mutex(State(source: .host(host, handle)))
    }

    /// A message that is only its normalized JSON.
    init(json: String) {
        state = Mutex(State(source: .copy(json)))
    }

    /// `message_id`, kept.
    var id: String {
        state.withLock { state in
            if let id = state.id { return id }
            let id = switch state.source {
            case .host(let host, let handle): String(cString: host.pointee.message_id(handle))
            case .copy(let json): CompactJSON.value(at: "id", in: json) ?? ""
            }
            state.id = id
            return id
        }
    }

    /// `message_target`, kept.
    var target: String? {
        state.withLock { state in
            if let target = state.target { return target }
            let target = switch state.source {
            case .host(let host, let handle): host.pointee.message_target(handle).map { String(cString: $0) }
            case .copy(let json): CompactJSON.value(at: "target", in: json)
            }
            state.target = target
            return target
        }
    }

    /// `message_json`, kept.
    var json: String {
        state.withLock { state in Self.json(&state) }
    }

    /// `message_get` at the NUL-ended dotted `path`.
    func value(at path: UnsafePointer<CChar>) -> String? {
        state.withLock { state in
            switch state.source {
            case .host(let host, let handle):
                return host.pointee.message_get(handle, path).map { String(cString: $0) }
            case .copy(let json):
                return CompactJSON.value(at: UnsafeRawBufferPointer(start: path, count: strlen(path)), in: json)
            }
        }
    }

    /// Ends the host's loan of the message (the handler is over): when a
    /// `Message` other than `storage` still refers to it, its JSON is copied
    /// first, so that later reads come from the copy; otherwise nobody can
    /// read it again, and nothing is copied.
    static func endBorrow(_ storage: inout MessageStorage) {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        storage.keepCopy()
    }

    /// Ends the host's loan of the message for good: its JSON is copied
    /// (read from the host, unless it was already), and every later read
    /// comes from the copy.
    func keepCopy() {
        state.withLock { state in
            state.source = .copy(Self.json(&state))
        }
    }

    /// The JSON of the message in `state`, read from the host once.
    private static func json(_ state: inout State) -> String {
        switch state.source {
        case .copy(let json):
            return json
        case .host(let host, let handle):
            if let json = state.json { return json }
            var length = 0
            let text = host.pointee.message_json(handle, &length)
            let json = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
            state.json = json
            return json
        }
    }
}
