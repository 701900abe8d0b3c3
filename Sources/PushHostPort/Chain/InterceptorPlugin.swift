import CPushHost
import Logging
import PushHostSystem
import PushHostPlugins

/// A plugin that offers `ph.interceptor/1`: its handlers, and what its
/// chains' calls need from any thread (its name, its log, where a turn
/// that ends later is posted). An isolated one's handlers post to its worker.
package final class InterceptorPlugin: @unchecked Sendable {
    let interceptor: InterceptorName
    package let logger: Logger
    let inbox: Inbox<ChainLink.Posted>
    /// The plugin's number in load order, as the crash journal names it.
    package let index: Int32
    private let state: UnsafeMutableRawPointer?
    /// In the host: its table's functions.
    private let intercept: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void)?
    private let onOutcome: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer, UnsafePointer<CChar>) -> Void)?
    /// Elsewhere: where its calls are posted.
    private let remote: (any RemotePlugin)?
    package let hasOnOutcome: Bool

    package var name: String { interceptor.name }

    /// The interceptor `plugin` offers, nil when it offers none; its
    /// `on_outcome` only when the table it offers covers one
    /// (``ExtensionTable``).
    ///
    /// - Throws: when the table is too small to hold `intercept`, or lacks it.
    package init?(_ plugin: PluginInstance, inbox: Inbox<ChainLink.Posted>) throws(SetupError) {
        interceptor = InterceptorName.register(plugin.name)
        logger = plugin.context.logger
        self.inbox = inbox
        index = plugin.index
        state = plugin.state
        if let remote = plugin.remote {
            // Its worker checked the table as below; each turn is posted there.
            guard remote.offers.contains(.interceptor) else { return nil }
            self.remote = remote
            intercept = nil
            onOutcome = nil
            hasOnOutcome = remote.offers.contains(.outcome)
            return
        }
        guard let offered = plugin.plugInExtension(PH_EXT_INTERCEPTOR) else { return nil }
        let table = ExtensionTable<ph_interceptor>(offered)
        guard let intercept = table.function(\.intercept) else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_INTERCEPTOR) table (\(table.size) bytes) lacks intercept")
        }
        self.intercept = intercept
        onOutcome = table.function(\.on_outcome)
        hasOnOutcome = onOutcome != nil
        remote = nil
    }

    package func call(_ chain: OpaquePointer) {
        if let remote { return remote.intercept(chain) }
        intercept!(state, chain)
    }

    package func tell(_ message: OpaquePointer, line: UnsafePointer<CChar>) {
        if let remote { return remote.outcome(message, line: line) }
        onOutcome?(state, message, line)
    }

    /// The host no longer waits for the turn under `chain`: an interceptor
    /// elsewhere drops it (in the host, the closed chain is enough).
    package func withdraw(_ chain: OpaquePointer) {
        remote?.withdrawTurn(chain)
    }
}
