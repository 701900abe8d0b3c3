import PushHostJSON

/// A person acted on the notification of a delivered message (docs/running.md,
/// actions): `{"pushhost":"action","id":"m-101","action":"tap"|"ACTION_ID","input":"..."}`.
package struct ActionEvent: Equatable {
    /// The id of the message whose notification was acted on.
    package let id: String
    /// `tap` for the notification itself, else the id of one of the
    /// message's `notification.actions`.
    package let action: String
    /// The text of a reply action, or nil.
    package let input: String?

    /// The word for a tap on the notification itself.
    package static let tap = "tap"

    init(id: String, action: String, input: String?) {
        self.id = id
        self.action = action
        self.input = input
    }

    /// The event in `record`, an object whose `pushhost` member is `"action"`.
    package init(record: JSONValue) throws(RecordError) {
        guard let id = record.member(named: "id") else {
            throw RecordError(event: .action, reason: "an action event needs \"id\": the id of the message acted on")
        }
        guard id.kind == .string, !id.text.isEmpty else {
            throw RecordError(event: .action, reason: "\"id\" must be the id of the message acted on, a non-empty string")
        }
        guard let action = record.member(named: "action") else {
            throw RecordError(event: .action, reason: "an action event needs \"action\": \"tap\" or the id of one of the message's notification.actions")
        }
        guard action.kind == .string, !action.text.isEmpty else {
            throw RecordError(event: .action, reason: "\"action\" must be \"tap\" or the id of one of the message's notification.actions, a non-empty string")
        }
        var input: String?
        if let value = record.member(named: "input"), value.kind != .null {
            guard value.kind == .string else {
                throw RecordError(event: .action, reason: "\"input\" must be a string (the text of a reply action), not \(value.kind.withArticle)")
            }
            input = value.text
        }
        self.init(id: id.text, action: action.text, input: input)
    }
}
