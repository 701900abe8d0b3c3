/// The kind of a JSON value, as recorded on the tape.
@usableFromInline package enum JSONKind: UInt8, Sendable {
    case object
    case array
    case string
    case number
    case `true`
    case `false`
    case null

    /// Whether this kind is an object or an array.
    @inline(__always)
    @inlinable package var isContainer: Bool { self.rawValue <= JSONKind.array.rawValue }

    /// The kind in words, for error messages: `an object`, `a number`, `a boolean`.
    package var withArticle: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .true, .false: "a boolean"
        case .null: "null"
        }
    }
}
