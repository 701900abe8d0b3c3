/// The kind of a JSON value, as recorded on the tape.
enum JSONKind: UInt8, Sendable {
    case object
    case array
    case string
    case number
    case `true`
    case `false`
    case null

    /// Whether this kind is an object or an array.
    var isContainer: Bool { self == .object || self == .array }
}
