#if canImport(Glibc)
import Glibc
#endif

/// Comparing raw bytes (keys and values of the input) with fixed ASCII text.
extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `text`: up to 16 bytes compared as
    /// two overlapping words each side, without a call.
    @inline(__always)
    @inlinable package func equals(_ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard count == length else { return false }
        guard length >= 4, length <= 16, let bytes = baseAddress else { return hasPrefix(text) }
        let other = UnsafeRawPointer(text.utf8Start)
        if length >= 8 {
            return bytes.loadUnaligned(as: UInt64.self) == other.loadUnaligned(as: UInt64.self)
                && bytes.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                    == other.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        }
        return bytes.loadUnaligned(as: UInt32.self) == other.loadUnaligned(as: UInt32.self)
            && bytes.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
                == other.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
    }

    /// Whether these bytes start with `text`.
    @inline(__always)
    @inlinable package func hasPrefix(_ text: StaticString) -> Bool {
        count >= text.utf8CodeUnitCount
            && (text.utf8CodeUnitCount == 0 || memcmp(baseAddress!, text.utf8Start, text.utf8CodeUnitCount) == 0)
    }
}
