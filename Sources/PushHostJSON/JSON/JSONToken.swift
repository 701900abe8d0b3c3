/// One tape entry: a value or object key, with its byte range and the extent of its subtree.
///
/// The tape lists tokens in document order. An object's members follow it as a key
/// (a `.string` token) and then the value's subtree; an array's elements follow it as
/// consecutive subtrees. Offsets are 32-bit to keep the entry at 20 bytes.
@usableFromInline package struct JSONToken: Equatable, Sendable {
    /// Offset of the first byte: the bracket of a container, the byte after the opening
    /// quote of a string, the first character of a number or literal.
    @usableFromInline package var start: UInt32
    /// Offset just past the last byte: past the closing bracket of a container, at the
    /// closing quote of a string, past the text of a number or literal.
    @usableFromInline var end: UInt32
    /// Tape index just past this token's subtree (its own index + 1 for scalars).
    @usableFromInline var next: UInt32
    /// Number of members of an object or elements of an array; 0 for other kinds.
    @usableFromInline var count: UInt32
    /// What kind of value this is.
    @usableFromInline var kind: JSONKind
    /// For strings: whether the raw text contains a backslash escape.
    @usableFromInline var isEscaped: Bool
}
