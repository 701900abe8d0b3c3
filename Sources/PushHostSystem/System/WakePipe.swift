#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose read end the dispatch thread polls, so that another thread
/// (or a signal handler) can wake it: `wake()` writes a byte, `drain()`
/// empties it. Both ends are non-blocking and close on exec.
package struct WakePipe: Sendable {
    /// The end to poll.
    package let readEnd: Int32
    let writeEnd: Int32

    package init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes the read end readable. Safe in a signal handler.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe.
    package func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    package func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
