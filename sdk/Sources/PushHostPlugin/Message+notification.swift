extension Message {
    /// The buttons the notification offers (`notification.actions`), in
    /// order; empty when it offers none.
    ///
    /// ```swift
    /// let buttons = message.actions.map(\.title).joined(separator: ", ")  // "Open, Reply"
    /// let reply = message.actions.first(where: \.isInput)                  // the one that takes text
    /// ```
    ///
    /// Read from the host (and parsed) each time: keep the result when you
    /// need it more than once. An element without an `id` is left out.
    public var actions: [NotificationAction] {
        guard let list = notification["actions"] else { return [] }
        return CompactJSON.elements(of: list).compactMap(NotificationAction.init(json:))
    }

    /// `notification.image`: the URL of a picture to show with the notification.
    public var image: String? { notification["image"] }

    /// `notification.icon`: the URL of the notification's icon.
    public var icon: String? { notification["icon"] }

    /// `notification.click`: the URL to open when the notification is tapped.
    public var click: String? { notification["click"] }

    /// `notification.style`: `default`, `image` or `bigtext`.
    public var style: String? { notification["style"] }
}

/// One button of a notification (an element of `notification.actions`):
/// choosing it calls `ActionPlugin.onAction` with an `Action` whose `id` is
/// this one's.
public struct NotificationAction: Sendable, Hashable {
    /// What `Action.id` is when a person chooses it.
    public let id: String
    /// What the button says; its `id` when the message gives no title.
    public let title: String
    /// Whether it takes text (a reply), which comes as `Action.input`.
    public let isInput: Bool

    /// A button with `id`, the `title` it shows, and whether it takes text;
    /// for a plugin's own tests, since `Message.actions` reads the buttons
    /// from the message.
    public init(id: String, title: String, isInput: Bool = false) {
        self.id = id
        self.title = title
        self.isInput = isInput
    }

    /// `{"id","title","input":true}` as compact JSON; nil without an `id`.
    init?(json: String) {
        var id: String?, title: String?, isInput = false
        for (key, value) in CompactJSON.members(of: json) {
            switch key {
            case "id": id = value
            case "title": title = value
            case "input": isInput = value == "true"
            default: break
            }
        }
        guard let id, !id.isEmpty else { return nil }
        self.init(id: id, title: title ?? id, isInput: isInput)
    }
}
