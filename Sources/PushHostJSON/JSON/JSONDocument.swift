/// A successfully parsed JSON text: the tape produced by ``JSONReader`` and the input it indexes.
///
/// A document owns nothing; it points into memory owned by others. It stays valid only
/// while the input buffer given to ``JSONReader/parse(_:)`` is alive and unchanged, and
/// while the reader that produced it is alive and has not parsed another input. The same
/// holds for every ``JSONValue`` obtained from it.
@usableFromInline package struct JSONDocument {
    /// All tokens in document order; entry 0 is the top-level value.
    @usableFromInline package let tape: UnsafeBufferPointer<JSONToken>
    /// The parsed bytes.
    @usableFromInline package let input: UnsafeRawBufferPointer
    /// The top-level value.
    @usableFromInline package let root: JSONValue
}
