#if canImport(Glibc)
import Glibc
#endif
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

    /// Whether this is an object of at most 16 members, of plain (unescaped)
    /// and distinct keys and scalar values, written without whitespace: its
    /// bytes are then its compact text, and what a merge of its members
    /// writes. One pass over its tape, no byte of its text read.
    @inlinable package var isFlatCompactObject: Bool {
        let object = token
        guard object.kind == .object, object.count <= 16 else { return false }
        let members = Int(object.count)
        // Braces, the commas between members, and per member its key's
        // quotes and its colon: the bytes outside the literals.
        var length = 2 &+ (members > 0 ? members &- 1 : 0) &+ 3 &* members
        // The key sizes seen (the last bit: 63 bytes or more): an earlier
        // key is compared only when one of the same size came.
        var sizes: UInt64 = 0
        let first = index &+ 1
        var key = first
        let end = first &+ 2 &* members
        while key < end {
            let name = tape[key]
            let value = tape[key &+ 1]
            guard !name.isEscaped, !value.kind.isContainer else { return false }
            let size = Int(name.end &- name.start)
            let bit: UInt64 = 1 << UInt64(min(size, 63))
            if sizes & bit != 0 && repeatsAnEarlierKey(key) { return false }
            sizes |= bit
            length &+= size &+ Int(value.end &- value.start) &+ (value.kind == .string ? 2 : 0)
            key &+= 2
        }
        return length == Int(object.end &- object.start)
    }

    /// Whether the key at tape index `key`, of a flat object (keys at every
    /// second index after it), spells one of the keys before it. Out of
    /// line: the loop that calls it keeps its registers.
    @inline(never)
    @usableFromInline func repeatsAnEarlierKey(_ key: Int) -> Bool {
        let name = tape[key]
        let size = Int(name.end &- name.start)
        var earlier = index &+ 1
        while earlier < key {
            let other = tape[earlier]
            if Int(other.end &- other.start) == size && memcmp(input + Int(other.start), input + Int(name.start), size) == 0 {
                return true
            }
            earlier &+= 2
        }
        return false
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
