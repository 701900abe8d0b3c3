import Testing
@testable import PushHostSystem

/// Decimals written two digits at a time: every length, each edge of a pair.
@Suite struct DecimalDigitsTests {
    @Test(arguments: [0, 1, 9, 10, 11, 42, 99, 100, 101, 999, 1000, 10_000, 12_345, 99_999_999, 100_000_000, Int.max, -1, -10, -12_345, Int.min + 1])
    func writesAsDescriptionDoes(_ value: Int) {
        var array: [UInt8] = []
        array.appendDecimal(value)
        var buffer = ByteBuffer()
        buffer.appendDecimal(value)
        #expect(String(decoding: array, as: UTF8.self) == String(value))
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(value))
    }
}
