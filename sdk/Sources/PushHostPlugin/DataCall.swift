import CPushHost
import Synchronization

/// One call of a data handler, and who gives the host its verdict.
///
/// The handler runs on the plugin's `DataRunner` (or on a task started
/// with `Task.immediate` while that is busy), on the host's thread until it
/// first suspends. A handler that returns (or throws)
/// before that gets its verdict returned from `on_data` itself; one that
/// suspended gets `PH_PENDING` from `on_data`, then one `complete` when it
/// ends. `state` decides, by one compare-and-exchange on each side, which
/// of the two reports the verdict, even when the task ends on another
/// thread just as `on_data` returns.
final class DataCall: Sendable {
    /// `state` while the handler runs and `on_data` has not returned.
    private static let running: UInt8 = 0xFF
    /// `state` once `on_data` returned `PH_PENDING`: the task must `complete`.
    private static let pending: UInt8 = 0xFE

    private let plugin: any DataPlugin
    private let context: PluginContext
    private let handle: Handle
    /// `running`, `pending`, or the verdict (its raw value) the handler gave
    /// before `on_data` returned.
    private let state = Atomic<UInt8>(running)

    /// A call of `plugin`'s data handler for the host's message `handle`.
    init(_ plugin: any DataPlugin, context: PluginContext, handle: OpaquePointer) {
        self.plugin = plugin
        self.context = context
        self.handle = Handle(raw: handle)
    }

    /// Runs the handler, ends the loan of the message, and reports the
    /// verdict: a returned verdict as it is, a thrown error as failed
    /// (logged). The handler's `Message` is gone by `endBorrow`, which so
    /// sees only the copies the plugin kept.
    nonisolated(nonsending) func run() async {
        var storage = MessageStorage(host: context.host, handle: handle.raw)
        let verdict: ph_verdict
        do {
            verdict = try await plugin.onData(Message(storage: storage)) == .continue ? PH_CONTINUE : PH_SUPPRESS
        } catch {
            context.log("message \(Message(storage: storage).id) failed: \(error)", level: .error)
            verdict = PH_FAILED
        }
        MessageStorage.endBorrow(&storage)
        let (exchanged, _) = state.compareExchange(
            expected: Self.running, desired: UInt8(verdict.rawValue), ordering: .acquiringAndReleasing)
        if !exchanged { context.host.pointee.complete(context.host, handle.raw, verdict) }
    }

    /// What `on_data` returns once the handler returned or suspended: the verdict when
    /// the handler already gave it, else `PH_PENDING`.
    func returned() -> ph_verdict {
        let (exchanged, verdict) = state.compareExchange(
            expected: Self.running, desired: Self.pending, ordering: .acquiringAndReleasing)
        return exchanged ? PH_PENDING : ph_verdict(rawValue: UInt32(verdict))
    }

    /// The host's message handle; the host's accessors and `complete` take
    /// it from any thread.
    private struct Handle: @unchecked Sendable {
        let raw: OpaquePointer
    }
}
