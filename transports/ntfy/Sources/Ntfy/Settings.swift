#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The plugin's settings (its .json file and `--set ntfy.KEY=VALUE`),
/// checked once at `create`: a bad one refuses the plugin with its reason.
struct Settings: Sendable, Equatable {
    /// The server's base address, `http://` or `https://`, without a trailing `/`.
    var url: String
    /// The topic: 1 to 64 of `-`, `_`, ASCII letters and digits (ntfy's own rule).
    var topic: String
    /// `since` on a first connect with no stored id: nil (only new messages) or `all`.
    var firstSince: String?
    /// The first and the largest wait between two connects, in seconds.
    var backoffMin: Double
    var backoffMax: Double
    /// The longest line taken, in bytes; a longer one is skipped.
    var maxLine: Int
    /// No bytes for this many seconds ends the connection (ntfy sends a keepalive every 45).
    var idleTimeout: Double
    /// How many more times a record the host answered "retry" is submitted.
    var retries: Int

    static let defaultMaxLine = 1 << 20

    /// Reads every setting through `setting`; throws the first bad one.
    init(_ setting: (String) -> String?) throws(SettingError) {
        url = try Self.baseURL(setting("url"))
        topic = try Self.topic(setting("topic"))
        switch setting("since") {
        case nil, "new": firstSince = nil
        case "all": firstSince = "all"
        case let other?:
            throw SettingError("since must be \"new\" (only messages sent from now on, the default) or \"all\" (every message the server still keeps), not \(Self.quoted(other))")
        }
        backoffMin = try Self.seconds("backoff_min", setting("backoff_min"), default: 0.5, in: 0.01...3600)
        backoffMax = try Self.seconds("backoff_max", setting("backoff_max"), default: 30, in: 0.01...3600)
        guard backoffMin <= backoffMax else {
            throw SettingError("backoff_min (\(Self.number(backoffMin)) s) must not be above backoff_max (\(Self.number(backoffMax)) s)")
        }
        maxLine = try Self.whole("max_line", setting("max_line"), default: Self.defaultMaxLine, in: 64...(64 << 20))
        idleTimeout = try Self.seconds("idle_timeout", setting("idle_timeout"), default: 120, in: 0.1...86400)
        retries = try Self.whole("retries", setting("retries"), default: 5, in: 0...1000)
    }

    /// The address of the topic's JSON stream, with `since` when given (an
    /// id of letters and digits, `all`, or a Unix time: nothing to escape).
    func streamURL(since: String?) -> String {
        url + "/" + topic + "/json" + (since.map { "?since=" + $0 } ?? "")
    }

    /// `url`: http or https, a host, an optional port and path; no user,
    /// password, query or fragment, nothing outside printable ASCII.
    static func baseURL(_ value: String?) throws(SettingError) -> String {
        guard let value, !value.isEmpty else {
            throw SettingError("url is required: the ntfy server's address, such as https://ntfy.sh")
        }
        let shown = quoted(value)
        guard value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw SettingError("url \(shown) holds a space, a control character or a non-ASCII character")
        }
        let lower = value.lowercased()
        guard let schemeEnd = ["http://", "https://"].first(where: lower.hasPrefix) else {
            throw SettingError("url must be an http:// or https:// address, not \(shown)")
        }
        guard !value.contains("?"), !value.contains("#") else {
            throw SettingError("url \(shown) must not hold a query (?) or a fragment (#): give the server's address alone")
        }
        var rest = value.dropFirst(schemeEnd.count)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.contains("@") else {
            throw SettingError("url \(shown) must not hold a user name or password")
        }
        guard try hostAndPortAreValid(authority, shown: shown) else {
            throw SettingError("url \(shown) has no valid host")
        }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let base = schemeEnd + rest
        // What the HTTP client will parse must parse, with the same host.
        guard let parsed = URL(string: base + "/x/json"), parsed.host != nil,
              parsed.scheme?.lowercased() == String(schemeEnd.dropLast(3)) else {
            throw SettingError("url \(shown) is not an address that can be read")
        }
        return base
    }

    /// `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`, the port from 1 to 65535.
    private static func hostAndPortAreValid(_ authority: Substring, shown: String) throws(SettingError) -> Bool {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty, host.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") }) else {
                return false
            }
        }
        if let port {
            guard let number = Int(port), port.allSatisfy(\.isASCII), (1...65535).contains(number) else {
                throw SettingError("url \(shown) has a bad port: \(quoted(String(port))) is not a number from 1 to 65535")
            }
        }
        return true
    }

    static func topic(_ value: String?) throws(SettingError) -> String {
        guard let value, !value.isEmpty else {
            throw SettingError("topic is required: the name of the ntfy topic to follow")
        }
        guard isTopic(value) else {
            throw SettingError("topic \(quoted(value)) is not an ntfy topic: 1 to 64 characters, each a letter, a digit, - or _")
        }
        return value
    }

    static func isTopic(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count)
            && value.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// ntfy's message ids are letters and digits; only such an id (1 to 64
    /// of them) is ever sent back in `since=` or kept.
    static func isMessageID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        (1...64).contains(bytes.count) && bytes.allSatisfy(isAlphanumeric)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func seconds(_ key: String, _ value: String?, default fallback: Double, in range: ClosedRange<Double>) throws(SettingError) -> Double {
        guard let value else { return fallback }
        guard let number = Double(value), number.isFinite, range.contains(number) else {
            throw SettingError("\(key) must be a number of seconds from \(number(range.lowerBound)) to \(number(range.upperBound)), not \(quoted(value))")
        }
        return number
    }

    private static func whole(_ key: String, _ value: String?, default fallback: Int, in range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let value else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw SettingError("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(quoted(value))")
        }
        return number
    }

    /// `5` for 5.0, `0.5` for 0.5.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A setting's text as a quoted Swift literal, so that odd characters show.
    static func quoted(_ value: String) -> String {
        value.count > 80 ? String(value.prefix(80)).debugDescription + "..." : value.debugDescription
    }
}

/// A refused setting; its description is the reason the host logs.
struct SettingError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}
