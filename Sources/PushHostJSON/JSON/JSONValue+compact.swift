/// Re-emitting a value as compact JSON.
extension JSONValue {
    /// Appends this value as JSON without insignificant whitespace to `out`.
    ///
    /// Strings, numbers and literals are copied byte for byte (strings keep their original
    /// escapes, which is valid JSON); between them only the structural characters are kept.
    package func appendCompact(to out: inout [UInt8]) {
        let token = token
        guard token.kind.isContainer else {
            appendBytes(literalRange(token), to: &out)
            return
        }
        var position = Int(token.start)
        for inner in index + 1 ..< Int(token.next) where !tape[inner].kind.isContainer {
            let range = literalRange(tape[inner])
            appendStructure(position ..< range.lowerBound, to: &out)
            appendBytes(range, to: &out)
            position = range.upperBound
        }
        appendStructure(position ..< Int(token.end), to: &out)
    }

    /// The input offsets spelling the scalar `token`, quotes included for strings.
    private func literalRange(_ token: JSONToken) -> Range<Int> {
        let quotes = token.kind == .string ? 1 : 0
        return Int(token.start) - quotes ..< Int(token.end) + quotes
    }

    /// Appends the input bytes at `range`.
    private func appendBytes(_ range: Range<Int>, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: input + range.lowerBound, count: range.count))
    }

    /// Appends the input bytes at `range`, which hold only structural characters and
    /// whitespace, without the whitespace.
    private func appendStructure(_ range: Range<Int>, to out: inout [UInt8]) {
        for offset in range where input[offset] > 0x20 {
            out.append(input[offset])
        }
    }
}
