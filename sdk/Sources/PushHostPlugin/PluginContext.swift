import CPushHost

/// What a plugin may ask of the host: its settings, the log, the token, its
/// state folder.
///
/// Safe to use from any task or thread, for as long as the plugin lives.
public final class PluginContext: @unchecked Sendable {
    /// The plugin's own host table and settings; both outlive the plugin.
    let host: UnsafePointer<ph_host>
    private let config: OpaquePointer

    init(host: UnsafePointer<ph_host>, config: OpaquePointer) {
        self.host = host
        self.config = config
    }

    /// The setting `key` (from the plugin's .json file or `--set`), or nil.
    public func setting(_ key: String) -> String? {
        host.pointee.config_get(config, key).map { String(cString: $0) }
    }

    /// The plugin's own folder in the host's state directory
    /// (`STATE/plugins/NAME`, made with mode 0700 on first use), for what it
    /// keeps across restarts; nil, with the host's reason logged, when it
    /// cannot be made or the host has no `ph.state/1`. Declare it with
    /// `static let usesStateFolder = true`.
    public var stateFolder: String? {
        guard let state = host.pointee.get_extension(host, PH_EXT_STATE)?.assumingMemoryBound(to: ph_state.self),
              covers(state, \.directory) else { return nil }
        return state.pointee.directory(host).map { String(cString: $0) }
    }

    /// The current registration token, or nil before the first one.
    public var currentToken: String? {
        host.pointee.current_token(host).map { String(cString: $0) }
    }

    /// How much a log line matters.
    public enum LogLevel: Sendable {
        /// `debug`, `info`, `warning` or `error`: the level of the line in
        /// the host's log, which names it (`info NAME: TEXT`).
        case debug, info, warning, error

        var raw: ph_log_level {
            switch self {
            case .debug: PH_LOG_DEBUG
            case .info: PH_LOG_INFO
            case .warning: PH_LOG_WARNING
            case .error: PH_LOG_ERROR
            }
        }
    }

    /// Writes one line to the host's log, marked with the plugin's name.
    public func log(_ text: String, level: LogLevel = .info) {
        host.pointee.log(host, level.raw, text)
    }
}
