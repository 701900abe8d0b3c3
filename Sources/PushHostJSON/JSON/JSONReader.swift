/// Strict RFC 8259 validator that indexes a JSON text into a reusable flat tape.
///
/// One reader is meant to parse many records in a row: its tape storage is kept and only
/// grows (to one token per input byte, the most any input can produce), so parsing does
/// not allocate once the largest record has been seen. Nothing is unescaped or converted
/// while parsing; see ``JSONValue`` for on-demand access.
///
/// The reader is non-copyable because it owns the tape memory; each returned
/// ``JSONDocument`` borrows that memory until the next `parse` call.
package struct JSONReader: ~Copyable {
    /// Deepest accepted nesting of arrays and objects; the next opening bracket is an error.
    let maxDepth: Int
    private var tape: UnsafeMutablePointer<JSONToken>
    private var tapeCapacity: Int

    /// Creates a reader that accepts at most `maxDepth` nested arrays and objects.
    package init(maxDepth: Int = 64) {
        precondition(maxDepth >= 0, "maxDepth must not be negative")
        self.maxDepth = maxDepth
        tapeCapacity = 512
        tape = .allocate(capacity: tapeCapacity)
    }

    deinit {
        tape.deallocate()
    }

    /// Validates `input` as one JSON text and indexes it.
    ///
    /// - Returns: a document valid until the next call and while `input` is alive and unchanged.
    /// - Throws: the ``JSONError`` of the first problem found.
    package mutating func parse(_ input: UnsafeRawBufferPointer) throws(JSONError) -> JSONDocument {
        if input.count > tapeCapacity {
            tape.deallocate()
            tapeCapacity = max(input.count, tapeCapacity * 2)
            tape = .allocate(capacity: tapeCapacity)
        }
        return try parse(input, into: tape)
    }

    /// Validates `input` as one JSON text and indexes it into `tape`, memory
    /// of the caller's with room for `input.count` tokens (the most any input
    /// can produce).
    ///
    /// - Returns: a document valid while `input` and `tape` are alive and unchanged.
    /// - Throws: the ``JSONError`` of the first problem found.
    package func parse(_ input: UnsafeRawBufferPointer, into tape: UnsafeMutablePointer<JSONToken>) throws(JSONError) -> JSONDocument {
        guard let start = input.baseAddress, !input.isEmpty else {
            throw JSONError(offset: 0, reason: JSONError.expectedValue)
        }
        guard input.count < Int(UInt32.max) else {
            throw JSONError(offset: Int(UInt32.max), reason: JSONError.inputTooLarge)
        }
        let bytes = start.assumingMemoryBound(to: UInt8.self)
        let count = try index(JSONScanner(base: bytes, end: bytes + input.count), into: tape)
        return JSONDocument(
            tape: UnsafeBufferPointer(start: tape, count: count),
            input: input,
            root: JSONValue(tape: tape, input: bytes, index: 0)
        )
    }

    /// Writes the tape for the input of `scanner` and returns the number of tokens.
    ///
    /// Every token starts at a distinct input byte, so the tape (at least as long as the
    /// input) cannot overflow. While a container is open, its `next` field holds the tape
    /// index of the enclosing container; closing it restores that and stores the real value.
    private func index(_ scanner: JSONScanner, into tape: UnsafeMutablePointer<JSONToken>) throws(JSONError) -> Int {
        let end = scanner.end
        var p = scanner.base
        var count = 0
        var depth = 0
        var current = 0
        var inObject = false

        nextValue: while true {
            p = scanner.skipWhitespace(p)
            guard p < end else { throw scanner.error(JSONError.expectedValue, at: p) }
            if p.pointee == UInt8(ascii: "[") || p.pointee == UInt8(ascii: "{") {
                guard depth < maxDepth else { throw scanner.error(JSONError.tooDeep(maxDepth), at: p) }
                inObject = p.pointee == UInt8(ascii: "{")
                tape[count] = JSONToken(
                    start: scanner.offset(p), end: 0, next: UInt32(truncatingIfNeeded: current),
                    count: 0, kind: inObject ? .object : .array, isEscaped: false)
                current = count
                count += 1
                depth += 1
                p = scanner.skipWhitespace(p + 1)
                let isEmpty = p < end && p.pointee == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                if !isEmpty {
                    tape[current].count = 1
                    if inObject { p = try key(scanner, at: p, into: tape, count: &count) }
                    continue nextValue
                }
            } else {
                var start = p
                var stop: UnsafePointer<UInt8>
                var isEscaped = false
                let kind: JSONKind
                switch p.pointee {
                case UInt8(ascii: "\""):
                    start = p + 1
                    (stop, isEscaped) = try scanner.string(from: start)
                    p = stop + 1
                    kind = .string
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    p = try scanner.number(at: p)
                    stop = p
                    kind = .number
                case UInt8(ascii: "t"):
                    p = try scanner.literal("true", at: p)
                    stop = p
                    kind = .true
                case UInt8(ascii: "f"):
                    p = try scanner.literal("false", at: p)
                    stop = p
                    kind = .false
                case UInt8(ascii: "n"):
                    p = try scanner.literal("null", at: p)
                    stop = p
                    kind = .null
                default:
                    throw scanner.valueError(at: p, inArray: depth > 0 && !inObject)
                }
                tape[count] = JSONToken(
                    start: scanner.offset(start), end: scanner.offset(stop),
                    next: UInt32(truncatingIfNeeded: count + 1), count: 0, kind: kind, isEscaped: isEscaped)
                count += 1
            }

            // A value is complete (or `p` is at the closing bracket of an empty container):
            // close containers until a comma asks for the next value.
            while depth > 0 {
                p = scanner.skipWhitespace(p)
                let closer = inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard p < end, p.pointee == UInt8(ascii: ",") || p.pointee == closer else {
                    let expected = inObject ? JSONError.expectedObjectSeparator : JSONError.expectedArraySeparator
                    throw scanner.structureError(expected, at: p)
                }
                if p.pointee == UInt8(ascii: ",") {
                    tape[current].count += 1
                    p += 1
                    if inObject { p = try key(scanner, at: p, into: tape, count: &count) }
                    continue nextValue
                }
                p += 1
                let parent = Int(tape[current].next)
                tape[current].end = scanner.offset(p)
                tape[current].next = UInt32(truncatingIfNeeded: count)
                current = parent
                depth -= 1
                inObject = depth > 0 && tape[parent].kind == .object
            }
            p = scanner.skipWhitespace(p)
            guard p == end else { throw scanner.structureError(JSONError.dataAfterValue, at: p) }
            return count
        }
    }

    /// Reads an object key and its colon, starting at `p` (whitespace allowed around both);
    /// appends the key token and returns the position after the colon.
    /// Inlined in the loop: a call for each key cost a fifth of its work.
    @inline(__always)
    private func key(
        _ scanner: JSONScanner, at start: UnsafePointer<UInt8>, into tape: UnsafeMutablePointer<JSONToken>, count: inout Int
    ) throws(JSONError) -> UnsafePointer<UInt8> {
        let p = scanner.skipWhitespace(start)
        guard p < scanner.end, p.pointee == UInt8(ascii: "\"") else { throw scanner.keyError(at: p) }
        let (close, isEscaped) = try scanner.string(from: p + 1)
        tape[count] = JSONToken(
            start: scanner.offset(p + 1), end: scanner.offset(close),
            next: UInt32(truncatingIfNeeded: count + 1), count: 0, kind: .string, isEscaped: isEscaped)
        count += 1
        let colon = scanner.skipWhitespace(close + 1)
        guard colon < scanner.end, colon.pointee == UInt8(ascii: ":") else {
            throw scanner.structureError(JSONError.expectedColon, at: colon)
        }
        return colon + 1
    }
}
