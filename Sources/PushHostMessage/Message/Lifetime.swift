import PushHostJSON
import PushHostSystem

/// How long a message may wait for its UI stage, as its sender stated it:
/// a time to live counted from the record's arrival at the host (GCM's
/// `time_to_live`, FCM v1's `android.ttl` and `webpush.headers.TTL`), or a
/// time it expires at (APNs' `apns-expiration`, ntfy's `expires`). A value
/// that is not a number of seconds (or a duration such as `"3.5s"`, for
/// `android.ttl`) states nothing: such a message never expires.
@usableFromInline package enum Lifetime: Equatable, Sendable {
    case unlimited
    /// Seconds from the record's arrival.
    case seconds(Double)
    /// The Unix time (seconds) it expires at.
    case until(Int64)

    /// How a payload states its lifetime (where it does: a layout's `lifetime`).
    enum Form: UInt8 {
        /// A number of seconds, as a number or a string of digits.
        case seconds
        /// Seconds with the suffix `s` (`"86400s"`, `"3.5s"`), as FCM v1's `android.ttl`.
        case duration
        /// A Unix time in seconds, as a number or a string of digits; 0
        /// for APNs means at once.
        case epoch
    }

    /// The lifetime `value` states, read as `form`.
    init(_ value: JSONValue, as form: Form) {
        if let whole = Self.wholeSeconds(value, form) {
            switch form {
            case .seconds, .duration: self = .seconds(Double(whole))
            case .epoch: self = whole == 0 ? .seconds(0) : .until(whole)
            }
            return
        }
        let text: [UInt8]
        switch value.kind {
        case .number: text = Array(value.rawBytes)
        case .string: text = value.textBytes
        default:
            self = .unlimited
            return
        }
        var digits = text[...]
        if form == .duration {
            guard digits.last == UInt8(ascii: "s") else {
                self = .unlimited
                return
            }
            digits = digits.dropLast()
        }
        // Plain decimal digits with at most one point: no sign, exponent or space.
        let points = digits.count { $0 == UInt8(ascii: ".") }
        guard !digits.isEmpty, digits.count <= 20, points <= (form == .epoch ? 0 : 1),
            digits.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }),
            let number = Double(String(decoding: digits, as: UTF8.self)), number.isFinite
        else {
            self = .unlimited
            return
        }
        switch form {
        case .seconds, .duration: self = .seconds(number)
        case .epoch: self = number == 0 ? .seconds(0) : .until(Int64(min(number, 1e15)))
        }
    }

    /// The common case, read where it lies: a whole number of seconds of
    /// at most 15 digits (exact as a `Double`), a number or an unescaped
    /// string (with the `s` of a duration); nil for anything else, which
    /// the general reading above takes.
    private static func wholeSeconds(_ value: JSONValue, _ form: Form) -> Int64? {
        guard value.kind == .number || (value.kind == .string && !value.isEscaped) else { return nil }
        var digits = value.rawBytes
        if form == .duration {
            guard value.kind == .string, digits.last == UInt8(ascii: "s") else { return nil }
            digits = UnsafeRawBufferPointer(rebasing: digits.dropLast())
        }
        guard !digits.isEmpty, digits.count <= 15 else { return nil }
        var whole: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            whole = whole &* 10 &+ Int64(byte &- UInt8(ascii: "0"))
        }
        return whole
    }

    /// Whether a message that arrived at `arrival` is past this lifetime at
    /// `now` (both Unix milliseconds): it waited longer than its time to live,
    /// or its expiry passed, counted in whole seconds.
    @usableFromInline package func isPast(arrival: Int64, now: Int64) -> Bool {
        switch self {
        case .unlimited: false
        case .seconds(let seconds): Double((now - arrival) / 1000) > seconds
        case .until(let time): now / 1000 > time
        }
    }

    /// Why a message with this lifetime expired, for its report line, in
    /// words that are the same on every run (`pushhost check` compares
    /// them): `its time to live of 60 s ran out`, `it expired at
    /// 2001-09-09T01:46:40.000Z`.
    package var reason: String {
        switch self {
        case .unlimited: "it never expires"
        case .seconds(let seconds):
            "its time to live of \(seconds == seconds.rounded() && seconds < 1e15 ? String(Int64(seconds)) : String(seconds)) s ran out"
        case .until(let time): "it expired at \(wallClockText(time * 1000))"
        }
    }
}
