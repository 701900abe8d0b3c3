#if canImport(Glibc)
import Glibc
#endif

/// Turns a value's text (as `message_get` hands it out, or a literal of the
/// manifest) into the 64-bit pattern of a scalar parameter, reading the C
/// string's bytes in place: no Swift `String` is made.
///
/// Integers are sign-extended, a float or double is its bit pattern, a
/// bool 0 or 1; written as 8 bytes into a parameter's slot, the low bytes
/// are the value libffi reads (little-endian, as on x86-64 and AArch64).
enum FFIConversion {
    /// Why a value's text does not make the parameter.
    enum Problem: Error {
        case notInteger
        case doesNotFit
        case notNumber
        case notBoolean

        /// `which is not an integer`, `which does not fit int8`.
        func reason(for type: FFIType) -> String {
            switch self {
            case .notInteger: "which is not an integer"
            case .doesNotFit: "which does not fit \(type.rawValue)"
            case .notNumber: "which is not a number"
            case .notBoolean: "which is not true or false"
            }
        }
    }

    /// The bits of `text`, `count` bytes long, as a value of the scalar
    /// `type`. A NUL byte within the count ends no value early: such a
    /// text is no number, nor true or false.
    static func bits(_ text: UnsafePointer<CChar>, count: Int, as type: FFIType) -> Result<UInt64, Problem> {
        guard strlen(text) == count else {
            return .failure(type.isInteger ? .notInteger : type == .bool ? .notBoolean : .notNumber)
        }
        if type.isInteger { return integer(text, as: type) }
        if type == .bool {
            if strcmp(text, "true") == 0 { return .success(1) }
            if strcmp(text, "false") == 0 { return .success(0) }
            return .failure(.notBoolean)
        }
        return floatingPoint(text, as: type)
    }

    /// A decimal integer (an optional `-`, then digits) within `type`'s range.
    private static func integer(_ text: UnsafePointer<CChar>, as type: FFIType) -> Result<UInt64, Problem> {
        let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        let negative = bytes[0] == UInt8(ascii: "-")
        var position = negative ? 1 : 0
        guard bytes[position] != 0 else { return .failure(.notInteger) }
        var magnitude: UInt64 = 0
        var overflow = false
        while bytes[position] != 0 {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return .failure(.notInteger) }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
            overflow = overflow || o1 || o2
            magnitude = sum
            position += 1
        }
        guard !overflow else { return .failure(.doesNotFit) }
        let range = type.integerRange
        if negative {
            // -min as a magnitude: 2^63 for int64 (the wrapped bit pattern), 0 unsigned.
            guard magnitude <= UInt64(bitPattern: 0 &- range.min) else { return .failure(.doesNotFit) }
            return .success(0 &- magnitude)
        }
        guard magnitude <= range.max else { return .failure(.doesNotFit) }
        return .success(magnitude)
    }

    /// A number as `strtod` reads it, whole, and finite in `type`.
    private static func floatingPoint(_ text: UnsafePointer<CChar>, as type: FFIType) -> Result<UInt64, Problem> {
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(text, &end)
        guard let end, end != UnsafeMutablePointer(mutating: text), end.pointee == 0,
              text.pointee != 0x20, text.pointee != 0x09 else { return .failure(.notNumber) }
        if type == .float {
            let single = Float(value)
            guard single.isFinite else { return .failure(.doesNotFit) }
            return .success(UInt64(single.bitPattern))
        }
        guard value.isFinite else { return .failure(.doesNotFit) }
        return .success(value.bitPattern)
    }
}
