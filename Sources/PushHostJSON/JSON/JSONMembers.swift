/// The members of a JSON object, as (key, value) pairs in document order.
///
/// Each step skips the previous value's whole subtree in O(1).
package struct JSONMembers: Sequence, IteratorProtocol {
    /// First token of the document's tape.
    let tape: UnsafePointer<JSONToken>
    /// First byte of the document's input.
    let input: UnsafePointer<UInt8>
    /// Tape index of the next key.
    var position: Int
    /// Tape index just past the object's subtree.
    let end: Int

    /// The next member, or nil after the last one.
    package mutating func next() -> (key: JSONValue, value: JSONValue)? {
        guard position < end else { return nil }
        let key = JSONValue(tape: tape, input: input, index: position)
        let value = JSONValue(tape: tape, input: input, index: position + 1)
        position = value.subtreeEnd
        return (key, value)
    }
}
