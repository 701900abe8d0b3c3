extension JSONValue {
    /// `textBytes` as a String.
    package var text: String {
        String(decoding: textBytes, as: UTF8.self)
    }

    /// A string unescaped; a number or literal as its text; an object or array as compact JSON.
    @usableFromInline package var textBytes: [UInt8] {
        var bytes: [UInt8] = []
        appendText(to: &bytes)
        return bytes
    }

    /// Appends `textBytes`.
    package func appendText(to bytes: inout [UInt8]) {
        if kind.isContainer { appendCompact(to: &bytes) } else { appendUnescaped(to: &bytes) }
    }

    /// `child` by the bytes of `segment`: a member's key, or an array index in decimal digits.
    package func child(_ segment: UnsafeRawBufferPointer) -> JSONValue? {
        switch kind {
        case .object: return member(named: segment)
        case .array:
            guard !segment.isEmpty, segment.count <= 18 else { return nil }
            var position = 0
            for byte in segment {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                position = position * 10 + Int(byte - UInt8(ascii: "0"))
            }
            var elements = elements
            for _ in 0..<position where elements.next() == nil { return nil }
            return elements.next()
        default: return nil
        }
    }
}
