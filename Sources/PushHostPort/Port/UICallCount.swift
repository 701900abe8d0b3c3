/// How many processes elsewhere have a UI call under way: kept by the
/// places (``RemotePlaces``) as their calls begin and end, and read by the
/// scheduler before every UI call, as a plain load.
@usableFromInline package final class UICallCount {
    @exclusivity(unchecked) @usableFromInline package var busy = 0

    package init() {}
}
