#if canImport(Glibc)
import Glibc
#endif

/// A counting semaphore between two threads, kept in a pipe so that the
/// waiting side can also poll it: each unit is one byte in the pipe.
package struct PipeSemaphore: Sendable {
    private let pipe = WakePipe()

    /// Readable while the count is above zero.
    package var fd: Int32 { pipe.readEnd }

    /// A semaphore whose count starts at `count` (far below a pipe's capacity).
    package init(count: Int = 0) {
        for _ in 0..<count { signal() }
    }

    /// Adds one to the count.
    package func signal() {
        pipe.wake()
    }

    /// Takes one from the count if it is above zero, without blocking.
    func tryWait() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count == 1 { return true }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// Takes one from the count, blocking while it is zero.
    package func wait() {
        while !tryWait() {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, -1)
        }
    }
}
