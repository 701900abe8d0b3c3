/// Object member lookup by key.
extension JSONValue {
    /// The value of the first member of this object whose key equals `name` (UTF-8 bytes),
    /// comparing keys by their unescaped value; nil if there is none or this is not an object.
    func member(named name: UnsafeRawBufferPointer) -> JSONValue? {
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

    /// The value of the member whose key is `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    func member(named name: StaticString) -> JSONValue? {
        member(named: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// The value of the member whose key is `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    func member(named name: String) -> JSONValue? {
        var name = name
        return name.withUTF8 { member(named: UnsafeRawBufferPointer($0)) }
    }

    /// The value of the member whose key is the UTF-8 `name`; see ``member(named:)-(UnsafeRawBufferPointer)``.
    func member(named name: [UInt8]) -> JSONValue? {
        name.withUnsafeBytes { member(named: $0) }
    }

    /// Whether the key token `key` spells `name` once unescaped.
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

    /// Whether the `count` bytes at `a` and `b` are equal.
    private static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var i = 0
        while count - i >= 8 {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
            guard x == y else { return false }
            i += 8
        }
        while i < count {
            guard a[i] == b[i] else { return false }
            i += 1
        }
        return true
    }
}
