#if canImport(Glibc)
import Glibc
#endif

/// Comparing raw bytes (keys and values of the input) with fixed ASCII text.
extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `text`.
    @inline(__always)
    func equals(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && hasPrefix(text)
    }

    /// Whether these bytes start with `text`.
    @inline(__always)
    func hasPrefix(_ text: StaticString) -> Bool {
        count >= text.utf8CodeUnitCount
            && (text.utf8CodeUnitCount == 0 || memcmp(baseAddress!, text.utf8Start, text.utf8CodeUnitCount) == 0)
    }
}
