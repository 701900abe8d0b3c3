/// How many processes elsewhere have a UI call under way: kept by the
/// places (``RemotePlaces``) as their calls begin and end, and read by the
/// scheduler before every UI call, as a plain load.
@usableFromInline package final class UICallCount {
    @exclusivity(unchecked) @usableFromInline package private(set) var busy = 0
    /// The one process busy while `busy` is 1 (its plugin's address): a
    /// call into it goes on at once, with no look at the others.
    @exclusivity(unchecked) @usableFromInline package private(set) var only: UnsafeMutableRawPointer?

    package init() {}

    /// `busy` processes have a UI call under way; `only`, the one when it is one.
    package func set(busy: Int, only: UnsafeMutableRawPointer?) {
        self.busy = busy
        self.only = busy == 1 ? only : nil
    }

    /// Whether a UI call into the process whose plugin is at `plugin` (nil:
    /// a call in the host) must wait for the UI calls under way elsewhere.
    @inlinable @inline(__always)
    package func mustWait(for plugin: UnsafeMutableRawPointer?) -> Bool {
        busy > 1 || (busy == 1 && (plugin == nil || plugin != only))
    }
}
