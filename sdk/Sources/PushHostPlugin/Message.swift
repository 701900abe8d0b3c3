/// One push message, read from the host on demand.
///
/// ```swift
/// func onData(_ message: Message) async throws -> Verdict {
///     guard message.target == "orders" else { return .continue }
///     context.log("order \(message.value(at: "data.order.id") ?? "?"): \(message.title ?? "")")
///     return message.data["silent"] == "true" ? .suppress : .continue
/// }
/// ```
///
/// A field is read from the host the first time a plugin asks for it:
/// nothing is copied for fields the plugin never reads. `id`, `target` and
/// `json` are kept once read; every other value (`data["key"]`,
/// `value(at:)`, ...) is asked of the host again, which keeps each value it
/// handed out until the handler is over.
///
/// A message may outlive its handler: it is `Sendable`, and a plugin may
/// store it or pass it to another task. The host lends its message only
/// until the UI handler returns, or until a data handler's verdict is given.
/// At that moment, if the plugin still holds the message anywhere, it is
/// copied once (its `json`, as compact text), and every later read comes from
/// that copy, never from the host; if the plugin kept nothing, nothing is
/// copied.
///
/// Two messages are equal when their `json` is (which includes the id and
/// where the message came from); comparing or hashing reads the whole `json`.
public struct Message: Sendable, Hashable {
    /// Where the fields come from: the host, or a copy.
    let storage: MessageStorage

    init(storage: MessageStorage) {
        self.storage = storage
    }

    /// A message made from normalized JSON, as `json` gives it: for a
    /// plugin's own tests, or to rebuild a message stored as text. `id` is
    /// "" when the JSON has none.
    public init(json: String) {
        storage = MessageStorage(json: json)
    }

    /// The message's own id, or one the host made for it.
    public var id: String { storage.id }

    /// The target the message aims at, if any.
    public var target: String? { storage.target }

    /// `high` or `normal`.
    public var priority: String? { value(at: "priority") }

    /// `data`: each value as text, read by key (`message.data["title"]`):
    /// strings as they are, numbers and booleans as their JSON text, objects
    /// and arrays as compact JSON.
    public var data: Fields { Fields(storage: storage, name: "data") }

    /// The notification fields (title, subtitle, body, image, sound, badge,
    /// category, ...), as text like `data`; empty for a data-only message.
    public var notification: Fields { Fields(storage: storage, name: "notification") }

    /// `notification.title`, else `data.title`.
    public var title: String? { notification["title"] ?? data["title"] }

    /// `notification.body`, else `data.body`.
    public var body: String? { notification["body"] ?? data["body"] }

    /// The whole normalized message as compact JSON.
    public var json: String { storage.json }

    /// The value at a dotted path of the normalized message, as text (see
    /// `data`), or nil when absent or null: `value(at: "data.title")`,
    /// `value(at: "notification.badge")`, `value(at: "source.line")`,
    /// `value(at: "data.nested.list.0")`.
    public func value(at path: String) -> String? {
        path.withCString { storage.value(at: $0) }
    }

    /// Whether both are the same message: the same storage, or equal `json`.
    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.storage === rhs.storage || lhs.json == rhs.json
    }

    /// Hashes `json`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(json)
    }
}
