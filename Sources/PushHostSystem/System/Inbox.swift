#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Items posted from any thread, waiting for the dispatch thread: the
/// `complete` calls of data plugins, the interceptors' turns that ended
/// later.
///
/// Posting appends under a lock and wakes the dispatch thread through a
/// pipe it polls beside its input.
@usableFromInline package final class Inbox<Element: Sendable>: Sendable {
    /// Readable when something was posted.
    package var fd: Int32 { wakePipe.readEnd }
    private let wakePipe = WakePipe()
    private let items = Mutex<[Element]>([])
    /// Whether `items` holds anything; set and cleared under the lock, read without it.
    @usableFromInline let posted = Atomic(false)

    package init() {}

    deinit {
        wakePipe.close()
    }

    package func post(_ item: Element) {
        let wasEmpty = items.withLock { items in
            items.append(item)
            posted.store(true, ordering: .releasing)
            return items.count == 1
        }
        if wasEmpty { wakePipe.wake() }
    }

    /// Whether anything was posted since the last `take`, without a system call.
    @inlinable package var hasItems: Bool {
        posted.load(ordering: .acquiring)
    }

    /// Everything posted so far, oldest first.
    package func take() -> [Element] {
        wakePipe.drain()
        return items.withLock { items in
            defer { items.removeAll() }
            posted.store(false, ordering: .relaxed)
            return items
        }
    }
}
