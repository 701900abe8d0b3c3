import PushHostSystem

/// Re-emitting a value as compact JSON.
extension JSONValue {
    /// Appends this value as JSON without insignificant whitespace to `out`.
    ///
    /// Strings, numbers and literals are copied byte for byte (strings keep their original
    /// escapes, which is valid JSON); between them only the structural characters are kept.
    /// Inlined where it is called, so that each sink's appends are direct.
    @inlinable package func appendCompact<Sink: ByteSink & ~Copyable>(to out: inout Sink) {
        let token = token
        guard token.kind.isContainer else {
            appendBytes(literalRange(token), to: &out)
            return
        }
        // The bytes from `run` on are appended in one piece, up to the next
        // whitespace between tokens (none, in compact input).
        var run = Int(token.start)
        var position = run
        for inner in index + 1 ..< Int(token.next) where !tape[inner].kind.isContainer {
            let range = literalRange(tape[inner])
            skipWhitespace(position ..< range.lowerBound, run: &run, to: &out)
            position = range.upperBound
        }
        skipWhitespace(position ..< Int(token.end), run: &run, to: &out)
        appendBytes(run ..< Int(token.end), to: &out)
    }

    /// Appends the run up to each whitespace byte of `range` (which holds
    /// only structural characters and whitespace), and starts the next run after it.
    @inlinable func skipWhitespace<Sink: ByteSink & ~Copyable>(_ range: Range<Int>, run: inout Int, to out: inout Sink) {
        for offset in range where input[offset] <= 0x20 {
            appendBytes(run ..< offset, to: &out)
            run = offset + 1
        }
    }

    /// The input offsets spelling the scalar `token`, quotes included for strings.
    @inlinable func literalRange(_ token: JSONToken) -> Range<Int> {
        let quotes = token.kind == .string ? 1 : 0
        return Int(token.start) - quotes ..< Int(token.end) + quotes
    }

    /// Appends the input bytes at `range`.
    @inlinable func appendBytes<Sink: ByteSink & ~Copyable>(_ range: Range<Int>, to out: inout Sink) {
        out.append(bytes: UnsafeRawBufferPointer(start: input + range.lowerBound, count: range.count))
    }
}
