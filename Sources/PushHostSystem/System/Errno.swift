#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value, as an error.
package struct Errno: Error, CustomStringConvertible {
    package let code: Int32

    package init(_ code: Int32) {
        self.code = code
    }

    package var description: String { String(cString: strerror(code)) }
}
