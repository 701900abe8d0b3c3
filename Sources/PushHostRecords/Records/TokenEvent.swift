import PushHostJSON

/// A token event, as the host reads it:
///
/// ```
/// {"pushhost":"token","token":"T"}
/// {"pushhost":"token","token":"https://push.example.net/up/a1b2","keys":{"p256dh":"BCVx...","auth":"BTBZ..."}}
/// {"pushhost":"token","token":null}
/// ```
///
/// A Web Push subscription's token is its endpoint, and its `keys` are what
/// a server encrypts to (base64url, as a browser's `PushSubscription` gives
/// them); `pushhost token --subscription` prints them back. A null token
/// says the registration is gone (a UnifiedPush distributor unregistered
/// the app): the stored token is removed.
package struct TokenEvent: Equatable {
    /// The new token; nil when the stored one is removed.
    package let token: String?
    package let keys: SubscriptionKeys?

    init(token: String?, keys: SubscriptionKeys? = nil) {
        self.token = token
        self.keys = keys
    }

    /// The event in `record`.
    ///
    /// - Throws: the reason, when `token` is missing, empty, not a string or
    ///   null, or holds a control character, or `keys` is not two base64url
    ///   strings (or comes with a null token).
    init(record: JSONValue) throws(RecordError) {
        guard let token = record.member(named: "token"), token.kind == .string || token.kind == .null else {
            throw RecordError(event: .token, reason: "a token event needs \"token\": a string (or null, to remove the stored one)")
        }
        let keys = try record.member(named: "keys").map { value throws(RecordError) in try SubscriptionKeys(value) }
        if token.kind == .null {
            guard keys == nil else { throw RecordError(event: .token, reason: "\"keys\" come with a token, not with a null one") }
            self.init(token: nil)
            return
        }
        let text = token.text
        guard !text.isEmpty else { throw RecordError(event: .token, reason: "the token is empty") }
        // Plugins get it as a C string, and the token file holds it as a line.
        guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw RecordError(event: .token, reason: "the token holds a control character (NUL, a line break, ...), which no token has")
        }
        self.init(token: text, keys: keys)
    }
}

/// The keys of a Web Push subscription: the receiver's P-256 public key
/// (`p256dh`) and its authentication secret (`auth`), both base64url.
package struct SubscriptionKeys: Equatable, Sendable {
    package let p256dh: String
    package let auth: String

    package init(p256dh: String, auth: String) {
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The keys in `value`, `{"p256dh":"...","auth":"..."}`.
    init(_ value: JSONValue) throws(RecordError) {
        func key(_ name: StaticString) throws(RecordError) -> String {
            guard let member = value.member(named: name), member.kind == .string, Self.isBase64URL(member.text) else {
                throw RecordError(event: .token, reason: "\"keys\" must be {\"p256dh\": ..., \"auth\": ...}, each base64url text")
            }
            return member.text
        }
        guard value.kind == .object else {
            throw RecordError(event: .token, reason: "\"keys\" must be {\"p256dh\": ..., \"auth\": ...}, each base64url text")
        }
        self.init(p256dh: try key("p256dh"), auth: try key("auth"))
    }

    /// Non-empty, and only the base64url alphabet (with `=` padding allowed).
    package static func isBase64URL(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
                true
            default: false
            }
        }
    }

    /// `{"p256dh":"...","auth":"..."}`: both are base64url, so nothing needs escaping.
    package var json: String { #"{"p256dh":"\#(p256dh)","auth":"\#(auth)"}"# }
}
