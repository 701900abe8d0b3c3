/// The elements of a JSON array in document order.
///
/// Each step skips the previous element's whole subtree in O(1).
package struct JSONElements: Sequence, IteratorProtocol {
    /// First token of the document's tape.
    let tape: UnsafePointer<JSONToken>
    /// First byte of the document's input.
    let input: UnsafePointer<UInt8>
    /// Tape index of the next element.
    var position: Int
    /// Tape index just past the array's subtree.
    let end: Int

    /// The next element, or nil after the last one.
    package mutating func next() -> JSONValue? {
        guard position < end else { return nil }
        let element = JSONValue(tape: tape, input: input, index: position)
        position = element.subtreeEnd
        return element
    }
}
