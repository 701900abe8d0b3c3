/// A handle to one value of a ``JSONDocument``: a tape index plus the pointers it resolves against.
///
/// Copying a value copies three words. It has the lifetime of the document it came from:
/// valid while that document's input is alive and its reader has not parsed again.
@usableFromInline package struct JSONValue {
    /// First token of the document's tape.
    @usableFromInline package let tape: UnsafePointer<JSONToken>
    /// First byte of the document's input.
    @usableFromInline package let input: UnsafePointer<UInt8>
    /// Position of this value's token on the tape.
    @usableFromInline package let index: Int

    @inlinable package init(tape: UnsafePointer<JSONToken>, input: UnsafePointer<UInt8>, index: Int) {
        self.tape = tape
        self.input = input
        self.index = index
    }

    /// This value's tape entry.
    @inlinable package var token: JSONToken { tape[index] }

    /// What kind of value this is.
    @inlinable package var kind: JSONKind { token.kind }

    /// Whether this is a string whose raw text contains a backslash escape.
    @inlinable package var isEscaped: Bool { token.isEscaped }

    /// Number of members of an object or elements of an array; 0 for other kinds.
    @inlinable package var count: Int { Int(token.count) }

    /// Tape index just past this value's subtree: where the next sibling starts.
    @inlinable var subtreeEnd: Int { Int(token.next) }

    /// The raw input bytes of this value: a string's text between the quotes (escapes not
    /// resolved), a container from its opening to its closing bracket, a number's or
    /// literal's text.
    @inlinable package var rawBytes: UnsafeRawBufferPointer {
        let token = token
        return UnsafeRawBufferPointer(start: input + Int(token.start), count: Int(token.end &- token.start))
    }

    /// The members of an object in document order; empty for other kinds.
    package var members: JSONMembers {
        JSONMembers(tape: tape, input: input, position: index + 1, end: kind == .object ? subtreeEnd : index + 1)
    }

    /// The elements of an array in document order; empty for other kinds.
    package var elements: JSONElements {
        JSONElements(tape: tape, input: input, position: index + 1, end: kind == .array ? subtreeEnd : index + 1)
    }
}
