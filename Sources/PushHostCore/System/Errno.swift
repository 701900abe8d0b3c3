#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value, as an error.
struct Errno: Error, CustomStringConvertible {
    let code: Int32

    init(_ code: Int32) {
        self.code = code
    }

    var description: String { String(cString: strerror(code)) }
}
