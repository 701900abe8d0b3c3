import CPushHost
import Logging
import PushHostSystem

/// A plugin that offers `ph.interceptor/1`: its handlers, and what its
/// chains' calls need from any thread (its name, its log, where a turn
/// that ends later is posted). An isolated one's handlers post to its worker.
final class InterceptorPlugin: @unchecked Sendable {
    let interceptor: InterceptorName
    let logger: Logger
    let inbox: Inbox<ChainLink.Posted>
    /// The plugin's number in load order, as the crash journal names it.
    let index: Int32
    private let state: UnsafeMutableRawPointer?
    private let intercept: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void
    private let onOutcome: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer, UnsafePointer<CChar>) -> Void)?
    /// Tells an isolated interceptor's worker that the host no longer waits for a turn.
    private let withdraw: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void)?

    var name: String { interceptor.name }
    var hasOnOutcome: Bool { onOutcome != nil }

    /// The interceptor `plugin` offers, nil when it offers none; its
    /// `on_outcome` only when the table it offers covers one
    /// (``ExtensionTable``).
    ///
    /// - Throws: when the table is too small to hold `intercept`, or lacks it.
    init?(_ plugin: PluginInstance, inbox: Inbox<ChainLink.Posted>) throws(SetupError) {
        interceptor = InterceptorName.register(plugin.name)
        logger = plugin.context.logger
        self.inbox = inbox
        index = plugin.index
        state = plugin.state
        if let worker = plugin.worker {
            // Its worker checked the table as below; each turn is posted there.
            guard worker.offers & WorkerFrame.offersInterceptor != 0 else { return nil }
            intercept = { state, chain in Worker.from(state).intercept(chain) }
            onOutcome = worker.offers & WorkerFrame.offersOutcome == 0 ? nil : { state, message, line in
                Worker.from(state).outcome(message, line: line)
            }
            withdraw = { state, chain in Worker.from(state).withdrawTurn(chain) }
            return
        }
        guard let offered = plugin.plugInExtension(PH_EXT_INTERCEPTOR) else { return nil }
        let table = ExtensionTable<ph_interceptor>(offered)
        guard let intercept = table.function(\.intercept) else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_INTERCEPTOR) table (\(table.size) bytes) lacks intercept")
        }
        self.intercept = intercept
        onOutcome = table.function(\.on_outcome)
        withdraw = nil
    }

    func call(_ chain: OpaquePointer) {
        intercept(state, chain)
    }

    func tell(_ message: OpaquePointer, line: UnsafePointer<CChar>) {
        onOutcome?(state, message, line)
    }

    /// The host no longer waits for the turn under `chain`: an isolated
    /// interceptor's worker drops it (in the host, the closed chain is enough).
    func withdraw(_ chain: OpaquePointer) {
        withdraw?(state, chain)
    }
}
