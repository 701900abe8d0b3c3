import CPushHost
import Logging

/// Receives `complete` calls for messages a data plugin answered `PH_PENDING`.
protocol CompletionSink: AnyObject, Sendable {
    func complete(_ message: OpaquePointer, verdict: ph_verdict, from plugin: String)
}

/// What the host knows about one plugin instance when the plugin calls back
/// through its `ph_host`: who it is, where its log lines go, where answers go.
final class PluginContext: @unchecked Sendable {
    let name: String
    let logger: Logger
    let tokens: TokenStore
    /// Set once by the dispatcher before any message flows; read from any thread after.
    weak var completions: (any CompletionSink)?

    init(name: String, logger: Logger, tokens: TokenStore) {
        self.name = name
        self.logger = logger
        self.tokens = tokens
    }

    static func of(_ host: UnsafePointer<ph_host>) -> PluginContext {
        Unmanaged<PluginContext>.fromOpaque(host.pointee.host_data!).takeUnretainedValue()
    }
}
