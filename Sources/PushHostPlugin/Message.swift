/// One push message, copied out of the host, so it can be kept and passed
/// to other tasks after the handler returns.
public struct Message: Sendable, Hashable {
    /// The message's own id, or one the host made for it.
    public let id: String
    /// The target the message aims at, if any.
    public let target: String?
    /// `data`, each value as text: strings as they are, numbers and
    /// booleans as their JSON text, objects and arrays as compact JSON.
    public let data: [String: String]
    /// The notification fields (title, subtitle, body, image, sound, badge,
    /// category, ...), as text like `data`; empty for a data-only message.
    public let notification: [String: String]
    /// The whole normalized message as compact JSON.
    public let json: String

    /// `notification.title`, else `data.title`.
    public var title: String? { notification["title"] ?? data["title"] }
    /// `notification.body`, else `data.body`.
    public var body: String? { notification["body"] ?? data["body"] }

    public init(id: String, target: String? = nil, data: [String: String] = [:], notification: [String: String] = [:], json: String = "{}") {
        self.id = id
        self.target = target
        self.data = data
        self.notification = notification
        self.json = json
    }
}
