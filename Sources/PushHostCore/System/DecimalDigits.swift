/// Decimal digits written straight into memory.
enum DecimalDigits {
    /// Writes the digits of `value` at `place` (at most 20 bytes) and returns how many.
    @inline(__always)
    static func write(_ value: UInt, to place: UnsafeMutableRawPointer) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        var left = value
        for position in stride(from: count - 1, through: 0, by: -1) {
            place.storeBytes(of: UInt8(ascii: "0") + UInt8(left % 10), toByteOffset: position, as: UInt8.self)
            left /= 10
        }
        return count
    }
}
