import CPushHost
import Logging
import Synchronization

/// Receives `complete` calls for messages a data plugin gave `PH_PENDING`.
protocol VerdictSink: AnyObject, Sendable {
    /// `reason` explains a failed verdict that the plugin did not give itself (its worker crashed).
    func complete(_ message: OpaquePointer, verdict: ph_verdict, from plugin: String, reason: String?)
}

/// What the host knows about one plugin instance when the plugin calls back
/// through its `ph_host`: who it is, where its log lines, verdicts and
/// records go, and where the token is.
final class PluginContext: @unchecked Sendable {
    let name: String
    let logger: Logger
    let tokens: TokenStore
    let submissions: any RecordSubmitter
    /// Set once by the data stage before any message flows; read from any thread after.
    weak var verdicts: (any VerdictSink)?
    /// The plugin's state folder (`ph.state/1`) once it was asked for; never freed.
    let folder = Mutex<UnsafePointer<CChar>?>(nil)

    init(name: String, logger: Logger, tokens: TokenStore, submissions: any RecordSubmitter) {
        self.name = name
        self.logger = logger
        self.tokens = tokens
        self.submissions = submissions
    }

    static func of(_ host: UnsafePointer<ph_host>) -> PluginContext {
        Unmanaged<PluginContext>.fromOpaque(host.pointee.host_data!).takeUnretainedValue()
    }
}
