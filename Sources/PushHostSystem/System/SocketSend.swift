#if canImport(Glibc)
import Glibc
#endif

/// Sends all of `bytes` on the stream socket `fd`, blocking while it is
/// full (and never raising SIGPIPE); false when the other end is gone.
package func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let count = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
    }
    return true
}
