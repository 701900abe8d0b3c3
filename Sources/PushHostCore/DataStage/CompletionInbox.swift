#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Synchronization

/// `complete` calls from any thread, waiting for the dispatch thread.
///
/// Posting appends under a lock and wakes the dispatch thread through a
/// pipe it polls beside its input.
final class CompletionInbox: Sendable {
    struct Completion: Sendable {
        /// The `ph_message` pointer as the plugin gave it; never dereferenced
        /// before it is found among the pending messages.
        let address: UInt
        let verdict: ph_verdict
        let plugin: String
    }

    /// Readable when something was posted.
    var fd: Int32 { wakePipe.readEnd }
    private let wakePipe = WakePipe()
    private let items = Mutex<[Completion]>([])
    /// Whether `items` holds anything; set and cleared under the lock, read without it.
    private let posted = Atomic(false)

    deinit {
        wakePipe.close()
    }

    func post(_ completion: Completion) {
        let wasEmpty = items.withLock { items in
            items.append(completion)
            posted.store(true, ordering: .releasing)
            return items.count == 1
        }
        if wasEmpty { wakePipe.wake() }
    }

    /// Whether anything was posted since the last `take`, without a system call.
    var hasItems: Bool {
        posted.load(ordering: .acquiring)
    }

    /// Everything posted so far, oldest first.
    func take() -> [Completion] {
        wakePipe.drain()
        return items.withLock { items in
            defer { items.removeAll() }
            posted.store(false, ordering: .relaxed)
            return items
        }
    }
}
