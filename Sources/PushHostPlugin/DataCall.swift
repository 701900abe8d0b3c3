import CPushHost
import Synchronization

/// One call of a data handler, and who gives the host its verdict.
///
/// The handler runs in a task started with `Task.immediate`, on the host's
/// thread until it first suspends. A handler that returns (or throws)
/// before that gets its verdict returned from `on_data` itself; one that
/// suspended gets `PH_PENDING` from `on_data`, then one `complete` when it
/// ends. `state` decides, by one compare-and-exchange on each side, which
/// of the two reports the verdict, even when the task ends on another
/// thread just as `on_data` returns.
final class DataCall: @unchecked Sendable {
    /// `state` while the handler runs and `on_data` has not returned.
    private static let running: UInt8 = 0xFF
    /// `state` once `on_data` returned `PH_PENDING`: the task must `complete`.
    private static let pending: UInt8 = 0xFE

    private let host: UnsafePointer<ph_host>
    private let handle: OpaquePointer
    /// `running`, `pending`, or the verdict (its raw value) the handler gave
    /// before `on_data` returned.
    private let state = Atomic<UInt8>(running)
    /// What the handler's message reads; used by the handler's task only.
    private var storage: MessageStorage

    /// A call of a data handler for the host's message `handle`.
    init(host: UnsafePointer<ph_host>, handle: OpaquePointer) {
        self.host = host
        self.handle = handle
        storage = MessageStorage(host: host, handle: handle)
    }

    /// Runs `plugin`'s handler, ends the loan of the message, and reports
    /// the verdict: a returned verdict as it is, a thrown error as failed
    /// (logged through `context`).
    func run(_ plugin: any DataPlugin, context: PluginContext) async {
        let verdict = await verdict(of: plugin, context: context)
        MessageStorage.endBorrow(&storage)
        let (exchanged, _) = state.compareExchange(
            expected: Self.running, desired: UInt8(verdict.rawValue), ordering: .acquiringAndReleasing)
        if !exchanged { host.pointee.complete(host, handle, verdict) }
    }

    /// What `on_data` returns once `Task.immediate` did: the verdict when
    /// the handler already gave it, else `PH_PENDING`.
    func returned() -> ph_verdict {
        let (exchanged, verdict) = state.compareExchange(
            expected: Self.running, desired: Self.pending, ordering: .acquiringAndReleasing)
        return exchanged ? PH_PENDING : ph_verdict(rawValue: UInt32(verdict))
    }

    /// The handler's verdict for the message. Its `Message` goes when this
    /// returns, so that `endBorrow` sees only the copies the plugin kept.
    private func verdict(of plugin: any DataPlugin, context: PluginContext) async -> ph_verdict {
        let message = Message(storage: storage)
        do {
            return try await plugin.onData(message) == .continue ? PH_CONTINUE : PH_SUPPRESS
        } catch {
            context.log("message \(message.id) failed: \(error)", level: .error)
            return PH_FAILED
        }
    }
}
