/// Where a message stands among the interceptors: how many proceeded it,
/// and, once one stopped it, how.
@usableFromInline package struct Interception {
    /// How many interceptors, in load order, proceeded the message; they
    /// get its report line through `on_outcome`.
    package var passed = 0
    /// Why the message ends here, once an interceptor stopped it (or broke
    /// the chain's rules, or let its deadline pass).
    @usableFromInline package var stop: InterceptorStop?
}

/// A message an interceptor ended: no data stage, no UI stage. A class, so
/// that asking whether a message was stopped costs one compare.
@usableFromInline package final class InterceptorStop {
    /// What the report says of the message.
    package enum Effect {
        case suppressed
        case failed
    }

    package let effect: Effect
    /// The interceptor's name (the report's `by`).
    package let by: String
    /// Why, as the interceptor said it (or the host, when it failed the message).
    package let reason: String?

    package init(effect: Effect, by: String, reason: String?) {
        self.effect = effect
        self.by = by
        self.reason = reason
    }
}
