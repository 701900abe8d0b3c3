/// Decimal digits written straight into memory.
enum DecimalDigits {
    /// Writes the digits of `value` at `place` (at most 20 bytes) and returns
    /// how many: two digits at a time from a table, last first, into a word
    /// buffer, then copied out.
    @inline(__always)
    static func write(_ value: UInt, to place: UnsafeMutableRawPointer) -> Int {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { room in
            let pairs = Self.pairs.utf8Start
            var end = 24, rest = value
            while rest >= 100 {
                let pair = Int(rest % 100)
                rest /= 100
                end -= 2
                room[end] = pairs[pair * 2]
                room[end + 1] = pairs[pair * 2 + 1]
            }
            if rest >= 10 {
                end -= 2
                room[end] = pairs[Int(rest) * 2]
                room[end + 1] = pairs[Int(rest) * 2 + 1]
            } else {
                end -= 1
                room[end] = UInt8(ascii: "0") + UInt8(rest)
            }
            place.copyMemory(from: room.baseAddress! + end, byteCount: 24 - end)
            return 24 - end
        }
    }

    /// "00" to "99", one after the other.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
}
