import CPushHost
import PushHostMessage
import PushHostRecords

/// A plugin that runs in another process (a worker: `--isolate`), as the
/// host holds it. Each call of one of its handlers is posted there and
/// returns at once; its end comes later. Stages reach it only through
/// ``Handler``, which hides where a plugin runs.
@usableFromInline package protocol RemotePlugin: AnyObject {
    /// Starts it, and waits until its plugin is created there.
    func start() throws(PluginRefusal)
    /// The extensions its plugin offers, as it said once created.
    var offers: RemoteOffers { get }

    /// Posts `on_data` on the message of `flight`: `PH_PENDING`, its
    /// verdict given later with `flight`; `PH_FAILED` at once when the
    /// plugin takes no calls (the message notes why).
    func callData(_ flight: InFlight) -> ph_verdict
    /// Posts a UI call (`on_background`, `on_target`, `on_mismatch`) on
    /// `message`, at hand: the call's number, as ``post(_:_:_:_:)`` gives it.
    func deliver(_ handler: PluginHandler, _ message: Message) -> UInt64?
    /// Posts a UI, token or action call (`handler`) on `message`, with the
    /// call's strings (`on_action`'s action and input, `on_token`'s token
    /// and previous one): the call's number, ended once ``answeredThrough``
    /// reaches it; nil when the plugin takes no calls (the message notes why).
    func post(_ handler: PluginHandler, _ message: OpaquePointer?, _ first: String?, _ second: String?) -> UInt64?
    /// The last of its calls that ended (answered, or failed).
    var answeredThrough: UInt64 { get }

    /// `intercept`: posts the turn under `chain`, which ends later.
    func intercept(_ chain: OpaquePointer)
    /// The host no longer waits for the turn under `chain`.
    func withdrawTurn(_ chain: OpaquePointer)
    /// `on_outcome`: posts the report line of a message it proceeded.
    func outcome(_ message: OpaquePointer, line: UnsafePointer<CChar>)
    /// Calls its source's `start` or `stop` and waits: what that returned
    /// (-1 when it could not run).
    func callSource(_ handler: PluginHandler) -> Int32

    /// Asks it to destroy its plugin and end, without waiting.
    func beginStop()
    /// Waits for it to end until `deadline` (monotonic ns), then kills it:
    /// true when it had to (its plugin was still in `destroy`).
    func finishStop(by deadline: UInt64) -> Bool
    /// `--stop-timeout`.
    var stopTimeout: Double { get }

    // What ``UnretainedRemote`` calls, on the object at `object`; each is
    // implemented once for every conformance (UnretainedRemote.swift).
    static func callData(at object: UnsafeMutableRawPointer, _ flight: InFlight) -> ph_verdict
    static func deliver(at object: UnsafeMutableRawPointer, _ handler: PluginHandler, _ message: Message) -> UInt64?
    static func answeredThrough(at object: UnsafeMutableRawPointer) -> UInt64
}

/// The extensions a plugin elsewhere offers.
@usableFromInline package struct RemoteOffers: OptionSet, Sendable {
    @usableFromInline package let rawValue: Int32

    @usableFromInline package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package static let interceptor = RemoteOffers(rawValue: 1 << 0)
    /// Its interceptor table has `on_outcome`.
    package static let outcome = RemoteOffers(rawValue: 1 << 1)
    package static let source = RemoteOffers(rawValue: 1 << 2)
}
