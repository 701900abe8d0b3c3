/// Decimal digits written straight into memory.
enum DecimalDigits {
    /// Writes the digits of `value` at `place` (at most 20 bytes) and returns
    /// how many: it counts them first, then writes two at a time from a
    /// table, last first, where they belong.
    @inline(__always)
    static func write(_ value: UInt, to place: UnsafeMutableRawPointer) -> Int {
        var count = 1, high = value
        while high >= 100 {
            high /= 100
            count &+= 2
        }
        if high >= 10 { count &+= 1 }
        let pairs = Self.pairs.utf8Start
        var end = count, rest = value
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            end &-= 2
            place.storeBytes(of: UnsafeRawPointer(pairs + pair).loadUnaligned(as: UInt16.self), toByteOffset: end, as: UInt16.self)
        }
        if rest >= 10 {
            place.storeBytes(of: UnsafeRawPointer(pairs + Int(rest) &* 2).loadUnaligned(as: UInt16.self), toByteOffset: 0, as: UInt16.self)
        } else {
            place.storeBytes(of: UInt8(ascii: "0") &+ UInt8(rest), as: UInt8.self)
        }
        return count
    }

    /// "00" to "99", one after the other.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
}
