/// How many processes elsewhere have a UI call under way: kept by the
/// places (``RemotePlaces``) as their calls begin and end, and read by the
/// scheduler before every UI call, as a plain load.
@usableFromInline package final class UICallCount {
    @exclusivity(unchecked) @usableFromInline package private(set) var busy = 0
    /// The one process busy, while `busy` is 1 and it is known (its
    /// plugin's address): calls into it go on at once, with no look at the others.
    @exclusivity(unchecked) @usableFromInline package private(set) var only: UnsafeMutableRawPointer?

    package init() {}

    /// The process whose plugin is at `plugin` began (`busy`) or ceased
    /// to have a UI call under way.
    package func note(_ plugin: UnsafeMutableRawPointer, busy isBusy: Bool) {
        busy += isBusy ? 1 : -1
        // When one of two ends, which one is left is not known here.
        only = isBusy && busy == 1 ? plugin : nil
    }
}
