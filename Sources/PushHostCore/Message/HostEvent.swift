/// A record addressed to the host itself: an object with a `"pushhost"` key.
///
/// ```
/// {"pushhost":"token","token":"T"}
/// {"pushhost":"foreground","screens":["issues","supplies"]}   (top first)
/// {"pushhost":"foreground","screen":"issues"}
/// {"pushhost":"background"}
/// ```
enum HostEvent: Equatable {
    case token(String)
    case foreground(screens: [String])
    case background

    /// The word the report uses for this event.
    var word: String {
        switch self {
        case .token: "token"
        case .foreground: "foreground"
        case .background: "background"
        }
    }

    /// The event in `record`, an object whose `pushhost` member is `kind`.
    ///
    /// - Throws: a reason a user can act on, when the event is malformed.
    init(kind: JSONValue, record: JSONValue) throws(RecordError) {
        guard kind.kind == .string else { throw RecordError(event: nil, reason: "\"pushhost\" must be a string naming the event") }
        let name = kind.text
        switch name {
        case "token":
            guard let token = record.member(named: "token"), token.kind == .string else {
                throw RecordError(event: name, reason: "a token event needs \"token\": a string")
            }
            let text = token.text
            guard !text.isEmpty else { throw RecordError(event: name, reason: "the token is empty") }
            self = .token(text)
        case "foreground":
            if let screens = record.member(named: "screens") {
                guard screens.kind == .array, screens.elements.allSatisfy({ $0.kind == .string }) else {
                    throw RecordError(event: name, reason: "\"screens\" must be an array of screen names, top first")
                }
                self = .foreground(screens: screens.elements.map(\.text))
            } else if let screen = record.member(named: "screen") {
                guard screen.kind == .string else { throw RecordError(event: name, reason: "\"screen\" must be a screen name") }
                self = .foreground(screens: [screen.text])
            } else {
                throw RecordError(event: name, reason: "a foreground event needs \"screens\" (top first) or \"screen\"")
            }
        case "background":
            self = .background
        default:
            throw RecordError(event: nil, reason: "unknown host event \"\(name)\" (known: token, foreground, background)")
        }
    }
}

/// Why a record was rejected: a plain reason, and the byte offset in the
/// record when the JSON itself is at fault.
struct RecordError: Error {
    /// The host event the record meant, when it was one.
    var event: String?
    var offset: Int?
    var reason: String

    init(event: String? = nil, offset: Int? = nil, reason: String) {
        self.event = event
        self.offset = offset
        self.reason = reason
    }
}

extension JSONValue {
    /// `textBytes` as a String.
    var text: String {
        String(decoding: textBytes, as: UTF8.self)
    }
}
