import PushHostJSON

/// A record addressed to the host itself: an object with a `"pushhost"` key.
///
/// ```
/// {"pushhost":"token","token":"T"}                  (see TokenEvent: keys, or null)
/// {"pushhost":"foreground","screens":["issues","supplies"]}   (top first)
/// {"pushhost":"foreground","screen":"issues"}
/// {"pushhost":"background"}
/// {"pushhost":"action","id":"m-101","action":"reply","input":"on my way"}
/// ```
package enum HostEvent: Equatable {
    case token(TokenEvent)
    case foreground(screens: [String])
    case background
    case action(ActionEvent)

    /// The events there are, by the word the record and the report use.
    package enum Kind: String {
        case token
        case foreground
        case background
        case action
    }

    package var kind: Kind {
        switch self {
        case .token: .token
        case .foreground: .foreground
        case .background: .background
        case .action: .action
        }
    }

    /// The event in `record`, an object whose `pushhost` member is `name`.
    ///
    /// - Throws: a reason a user can act on, when the event is malformed.
    package init(name: JSONValue, record: JSONValue) throws(RecordError) {
        guard name.kind == .string else { throw RecordError(reason: "\"pushhost\" must be a string naming the event") }
        guard let kind = Kind(rawValue: name.text) else {
            throw RecordError(reason: "unknown host event \"\(name.text)\" (known: token, foreground, background, action)")
        }
        switch kind {
        case .token:
            self = .token(try TokenEvent(record: record))
        case .foreground:
            if let screens = record.member(named: "screens") {
                guard screens.kind == .array, screens.elements.allSatisfy({ $0.kind == .string }) else {
                    throw RecordError(event: kind, reason: "\"screens\" must be an array of screen names, top first")
                }
                self = .foreground(screens: screens.elements.map(\.text))
            } else if let screen = record.member(named: "screen") {
                guard screen.kind == .string else { throw RecordError(event: kind, reason: "\"screen\" must be a screen name") }
                self = .foreground(screens: [screen.text])
            } else {
                throw RecordError(event: kind, reason: "a foreground event needs \"screens\" (top first) or \"screen\"")
            }
        case .background:
            self = .background
        case .action:
            self = .action(try ActionEvent(record: record))
        }
    }
}
