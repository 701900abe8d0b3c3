/// Where the writers of JSON lines put their bytes: an array, or a
/// ``ByteBuffer`` for the lines written on the hot path (the report). The
/// writers are generic over it, and specialized for each.
@usableFromInline package protocol ByteSink: ~Copyable {
    /// An empty sink, which allocates nothing.
    init()
    mutating func append(_ byte: UInt8)
    mutating func append(bytes: UnsafeRawBufferPointer)
    /// Appends `value` in decimal.
    mutating func appendDecimal(_ value: Int)
}

extension Array: ByteSink where Element == UInt8 {
    @inline(__always)
    @inlinable package mutating func append(bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }
}

/// Appending text without making a `String` on the way.
extension ByteSink where Self: ~Copyable {
    /// Appends the bytes of `text`.
    @inline(__always)
    @inlinable package mutating func append(ascii text: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 bytes of `text`.
    @inline(__always)
    @inlinable package mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Appends `value` in decimal.
    @usableFromInline package mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &digits) { room in
            let count = DecimalDigits.write(value.magnitude, to: room.baseAddress!)
            append(bytes: UnsafeRawBufferPointer(rebasing: room[..<count]))
        }
    }
}
