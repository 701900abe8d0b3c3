#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON

/// What one argument of an ffi function is bound to.
enum FFIBinding {
    /// A path of the message, with the literal taken when the message lacks it.
    case path(String, default: FFILiteral?)
    case literal(FFILiteral)
    /// The whole normalized message (a json or bytes parameter).
    case message
    /// The log callback (a log parameter).
    case log
    /// A token handler's new token, and the one before it (or NULL).
    case token
    case previous

    /// How the binding reads in a C signature: `notification.title`,
    /// `data.priority = 3`, `"/var/lib/legacy"`, `message`, `log`.
    var cName: String {
        switch self {
        case .path(let path, nil): path
        case .path(let path, let fallback?): "\(path) = \(fallback.cText)"
        case .literal(let literal): literal.cText
        case .message: "message"
        case .log: "log"
        case .token: "token"
        case .previous: "previous"
        }
    }
}

/// A literal of the manifest, checked against its parameter's type.
enum FFILiteral {
    /// A scalar's bits (see ``FFIConversion``), and its JSON text.
    case scalar(UInt64, text: String)
    /// A string, NUL-ended, owned for the whole run, and its length in
    /// bytes (a bytes parameter's literal may hold a NUL of its own).
    case text(UnsafePointer<CChar>, count: Int)
    /// NULL, for a text parameter.
    case null

    /// `text`'s bytes, copied for the whole run.
    static func text(_ text: String) -> FFILiteral {
        let bytes = Array(text.utf8)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(start: copy, count: bytes.count).copyMemory(from: $0) }
        copy[bytes.count] = 0
        return .text(UnsafePointer(copy), count: bytes.count)
    }

    /// As a C signature shows it: a number as it is, a string as a JSON string.
    var cText: String {
        switch self {
        case .scalar(_, let text): text
        case .text(let pointer, let count): JSONWriter.quoted(String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self))
        case .null: "NULL"
        }
    }
}

/// What the value at a path of the normalized message can be, as far as the
/// manifest can know before a message comes (docs/running.md, input).
enum FFIPathKind {
    case string
    case boolean
    case number
    /// An object or an array, handed out as compact JSON.
    case container
    /// A value of `data`, or a notification field the host leaves as it came.
    case any

    /// The kind of `path`, or nil when it is no path of a normalized message.
    init?(path: String) {
        let segments = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !segments.contains(where: \.isEmpty) else { return nil }
        switch (segments[0], segments.count) {
        case ("id", 1), ("target", 1), ("format", 1), ("priority", 1), ("topic", 1), ("collapse_key", 1):
            self = .string
        case ("content_available", 1): self = .boolean
        case ("notification", 1), ("data", 1), ("source", 1): self = .container
        case ("source", 2):
            switch segments[1] {
            case "kind", "file": self = .string
            case "line": self = .number
            default: return nil
            }
        case ("notification", 2):
            switch segments[1] {
            case "title", "body", "image", "icon", "click", "style": self = .string
            case "actions": self = .container
            default: self = .any
            }
        case ("notification", _), ("data", _): self = .any
        default: return nil
        }
    }

    /// Why a parameter of `type` cannot take a value of this kind, or nil.
    func refusal(for type: FFIType) -> String? {
        switch (self, type) {
        case (_, .string), (_, .bytes), (.any, _): nil
        case (.boolean, .bool): nil
        case (.number, _) where type.isInteger || type.isFloatingPoint: nil
        case (.string, _): "which is always a string"
        case (.boolean, _): "which is always a boolean"
        case (.number, _): "which is always a number"
        case (.container, _): "which is an object or an array"
        }
    }
}
