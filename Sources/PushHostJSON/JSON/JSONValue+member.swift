#if canImport(Glibc)
import Glibc
#endif

/// Object member lookup by key.
extension JSONValue {
    /// The value of the first member of this object whose key equals `name` (UTF-8 bytes),
    /// comparing keys by their unescaped value; nil if there is none or this is not an object.
    @usableFromInline package func member(named name: UnsafeRawBufferPointer) -> JSONValue? {
        let object = token
        guard object.kind == .object else { return nil }
        var position = index + 1
        let end = Int(object.next)
        while position < end {
            if keyMatches(tape[position], name) {
                return JSONValue(tape: tape, input: input, index: position + 1)
            }
            position = Int(tape[position + 1].next)
        }
        return nil
    }

    /// Calls `body` with each member's key (its unescaped bytes) and the
    /// tape index of its value, in document order: one pass that looks at
    /// every key, for a caller that looks for several at once.
    @inline(__always)
    @inlinable package func forEachMember(_ body: (_ key: UnsafeRawBufferPointer, _ value: Int32) -> Void) {
        var position = index + 1
        let end = subtreeEnd
        while position < end {
            let key = JSONValue(tape: tape, input: input, index: position)
            let value = Int32(truncatingIfNeeded: position + 1)
            if key.isEscaped {
                Self.withUnescaped(key) { body($0, value) }
            } else {
                body(key.rawBytes, value)
            }
            position = Int(tape[position + 1].next)
        }
    }

    /// Calls `body` with each member's key as written, in document order,
    /// while it returns true: false when it returned false, or a key is
    /// escaped (its bytes are then not its text).
    @inlinable package func allPlainKeys(_ body: (_ key: UnsafeRawBufferPointer) -> Bool) -> Bool {
        var position = index + 1
        let end = subtreeEnd
        while position < end {
            let key = JSONValue(tape: tape, input: input, index: position)
            guard !key.isEscaped, body(key.rawBytes) else { return false }
            position = Int(tape[position + 1].next)
        }
        return true
    }

    /// Calls `body` with the unescaped bytes of `key`: the rare path of
    /// `forEachMember`, kept out of line so that `body` is inlined once.
    @inline(never)
    @usableFromInline static func withUnescaped(_ key: JSONValue, _ body: (UnsafeRawBufferPointer) -> Void) {
        key.textBytes.withUnsafeBytes { body($0) }
    }

    /// The value of the member whose key is `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    @usableFromInline package func member(named name: StaticString) -> JSONValue? {
        member(named: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// The value of the member whose key is `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    @usableFromInline package func member(named name: String) -> JSONValue? {
        var name = name
        return name.withUTF8 { member(named: UnsafeRawBufferPointer($0)) }
    }

    /// The value of the member whose key is the UTF-8 `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    func member(named name: [UInt8]) -> JSONValue? {
        name.withUnsafeBytes { member(named: $0) }
    }

    /// Whether the key token `key` spells `name` once unescaped.
    @inline(__always)
    private func keyMatches(_ key: JSONToken, _ name: UnsafeRawBufferPointer) -> Bool {
        let length = Int(key.end &- key.start)
        let raw = input + Int(key.start)
        guard let target = name.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return length == 0 }
        if !key.isEscaped {
            return length == name.count && Self.bytesEqual(raw, target, length)
        }
        // Unescaping never lengthens a string.
        guard name.count <= length else { return false }
        var p = raw
        let stop = raw + length
        var q = target
        let targetEnd = target + name.count
        while p < stop {
            if p.pointee != UInt8(ascii: "\\") {
                guard q < targetEnd, q.pointee == p.pointee else { return false }
                p += 1
                q += 1
                continue
            }
            let (scalar, consumed) = JSONEscape.decode(at: p)
            p += consumed
            var (bytes, count) = JSONEscape.utf8(scalar)
            guard targetEnd - q >= count else { return false }
            while count > 0 {
                guard q.pointee == UInt8(truncatingIfNeeded: bytes) else { return false }
                bytes &>>= 8
                q += 1
                count -= 1
            }
        }
        return q == targetEnd
    }

    /// Whether the `count` bytes at `a` and `b` are equal: up to 16 as two
    /// overlapping words each side, longer ones by `memcmp`.
    @inline(__always)
    private static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        switch count {
        case 0: return true
        case 1..<4:
            return a[0] == b[0] && a[count - 1] == b[count - 1] && a[count / 2] == b[count / 2]
        case 4..<8:
            return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
                && x.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) == y.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        case 8...16:
            return x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
                && x.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        default:
            return memcmp(x, y, count) == 0
        }
    }
}
