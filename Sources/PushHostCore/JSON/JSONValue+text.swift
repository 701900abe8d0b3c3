extension JSONValue {
    /// `textBytes` as a String.
    var text: String {
        String(decoding: textBytes, as: UTF8.self)
    }

    /// A string unescaped; a number or literal as its text; an object or array as compact JSON.
    var textBytes: [UInt8] {
        var bytes: [UInt8] = []
        if kind.isContainer { appendCompact(to: &bytes) } else { appendUnescaped(to: &bytes) }
        return bytes
    }

    /// The member `segment` of an object, or the element at index `segment` of an array.
    func child(_ segment: String) -> JSONValue? {
        switch kind {
        case .object: return member(named: segment)
        case .array:
            guard let position = Int(segment), position >= 0 else { return nil }
            return elements.dropFirst(position).first { _ in true }
        default: return nil
        }
    }
}
