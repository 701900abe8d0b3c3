import CPushHost
import PushHostPlugins

/// Where the data verdicts that come later from elsewhere go: the data
/// stage, which the pipeline names when it is built.
@usableFromInline package protocol VerdictTaker: AnyObject {
    /// The verdict of the plugin numbered `plugin` on the message of `flight`,
    /// whose handle was at `handle` when the call was made; `reason`
    /// explains a failure the plugin did not give itself. Taken on the
    /// dispatch thread, never while a stage is under way.
    func take(_ verdict: ph_verdict, for flight: InFlight, handle: UInt, plugin: Int32, reason: String?)
}

/// Where the turns of interceptors that run elsewhere stand in the host:
/// the interceptor stage, which owns the chains (`ph_chain *`, here as
/// their address).
@usableFromInline package protocol TurnTaker: AnyObject {
    /// The message of the turn under `chain`, or a handle that names none.
    func message(ofTurn chain: UInt) -> OpaquePointer
    /// Ends the turn under `chain` as it ended elsewhere, after making the
    /// edits it made there (each checked again, as a `set` in the host is).
    func end(turn chain: UInt, _ ending: InterceptedEnding, reason: String?, edits: [ChainEdit])
    /// Fails the message of the turn under `chain`: it could not end elsewhere.
    func fail(turn chain: UInt, reason: String)
}

/// How an interceptor's turn elsewhere ended (in a worker's answer, its frame's number).
@usableFromInline package enum InterceptedEnding: Int32, Sendable {
    case proceeded
    case suppressed
    case failed
    /// It broke the chain's rules; the reason says how.
    case broken
}

/// One `set` an interceptor elsewhere made, for the host to make too.
@usableFromInline package struct ChainEdit: Equatable, Sendable {
    package let path: String
    /// The JSON text; nil removes the field.
    package let json: String?

    package init(path: String, json: String?) {
        self.path = path
        self.json = json
    }
}
