#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Synchronization

/// `complete` calls from any thread, waiting for the dispatch thread.
///
/// Posting appends under a lock and writes a byte to a pipe, whose read end
/// the dispatch thread polls beside its input.
final class CompletionInbox: Sendable {
    struct Completion: Sendable {
        /// The `ph_message` pointer as the plugin gave it; never dereferenced
        /// before it is found among the pending messages.
        let address: UInt
        let verdict: ph_verdict
        let plugin: String
    }

    /// The end to poll.
    let fd: Int32
    private let signal: Int32
    private let items = Mutex<[Completion]>([])

    init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe: \(String(cString: strerror(errno)))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fd = ends[0]
        signal = ends[1]
    }

    deinit {
        close(fd)
        close(signal)
    }

    func post(_ completion: Completion) {
        let wasEmpty = items.withLock { items in
            items.append(completion)
            return items.count == 1
        }
        var byte: UInt8 = 1
        if wasEmpty { _ = write(signal, &byte, 1) }
    }

    /// Whether anything was posted since the last `take`, without a system call.
    var hasItems: Bool {
        items.withLock { !$0.isEmpty }
    }

    /// Everything posted so far, oldest first.
    func take() -> [Completion] {
        var drained = [UInt8](repeating: 0, count: 64)
        while drained.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        return items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}
