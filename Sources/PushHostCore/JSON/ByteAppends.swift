/// Appending text to bytes without making a `String` on the way: what the
/// writers on the hot path (report lines, the delivered store) use.
extension Array where Element == UInt8 {
    /// Appends the bytes of `text`.
    @inline(__always)
    mutating func append(ascii text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &digits) { room in
            let count = DecimalDigits.write(value.magnitude, to: room.baseAddress!)
            append(contentsOf: room[..<count])
        }
    }
}
