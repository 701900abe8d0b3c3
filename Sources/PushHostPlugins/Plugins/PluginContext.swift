import CPushHost
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import Synchronization

/// One `complete` call, as posted from the plugin's thread, for a message
/// a data plugin gave `PH_PENDING`.
package struct Completion: Sendable {
    /// The `ph_message` pointer as the plugin gave it; never dereferenced
    /// before it is found among the pending messages.
    package let address: UInt
    package let verdict: ph_verdict
    package let plugin: String
    /// Explains a failed verdict that the plugin did not give itself (its worker crashed).
    package var reason: String? = nil

    package init(address: UInt, verdict: ph_verdict, plugin: String, reason: String? = nil) {
        self.address = address
        self.verdict = verdict
        self.plugin = plugin
        self.reason = reason
    }
}

/// What the host knows about one plugin instance when the plugin calls back
/// through its `ph_host`: who it is, where its log lines, verdicts and
/// records go, and where the token is.
package final class PluginContext: @unchecked Sendable {
    let name: String
    package let logger: Logger
    let tokens: TokenStore
    let submissions: any RecordSubmitter
    /// Where `complete` posts: set once by the data stage (in a worker, by
    /// its loop) before any message flows; read from any thread after.
    package nonisolated(unsafe) var verdicts: Inbox<Completion>?
    /// The plugin's state folder (`ph.state/1`) once it was asked for; never freed.
    let folder = Mutex<UnsafePointer<CChar>?>(nil)
    /// Where its metrics go (`ph.metrics/1`), with every other plugin's.
    let metrics: PluginMetrics
    /// Whether its `create` is under way, the only time it may declare metrics.
    nonisolated(unsafe) var creating = false
    /// How its `ph.bus/1` connects: set once by a worker's loop before `create`.
    package nonisolated(unsafe) var bus = BusAccess.direct
    /// The `ph.chain/1` table it gets: the interceptor stage's in a run,
    /// a worker's in a worker, the dry run's in a dry run.
    let chain: UnsafePointer<ph_chain_api>

    package init(
        name: String, logger: Logger, tokens: TokenStore, submissions: any RecordSubmitter, metrics: PluginMetrics, chain: UnsafePointer<ph_chain_api>
    ) {
        self.chain = chain
        self.name = name
        self.logger = logger
        self.tokens = tokens
        self.submissions = submissions
        self.metrics = metrics
    }

    static func of(_ host: UnsafePointer<ph_host>) -> PluginContext {
        Unmanaged<PluginContext>.fromOpaque(host.pointee.host_data!).takeUnretainedValue()
    }
}
