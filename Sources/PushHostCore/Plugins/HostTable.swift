import CPushHost
import Logging

/// Builds the `ph_host` function table that one plugin instance receives.
///
/// Each instance gets its own table whose `host_data` points at its
/// `PluginContext`, so a callback knows which plugin is calling. Tables and
/// contexts live until the process exits, like the plugins themselves.
enum HostTable {
    static func make(for context: PluginContext) -> UnsafePointer<ph_host> {
        let table = UnsafeMutablePointer<ph_host>.allocate(capacity: 1)
        table.initialize(
            to: ph_host(
                struct_size: UInt32(MemoryLayout<ph_host>.size),
                abi_major: HostABI.major,
                abi_minor: HostABI.minor,
                host_data: Unmanaged.passRetained(context).toOpaque(),
                message_id: { Message.from($0).idText },
                message_target: { Message.from($0).targetText },
                message_get: { Message.from($0).value(atPath: $1) },
                message_json: { message, length in
                    let message = Message.from(message)
                    let json = message.jsonText()
                    length?.pointee = json.count
                    return json.text
                },
                config_get: { PluginConfig.from($0).value($1) },
                complete: { host, message, verdict in
                    let context = PluginContext.of(host)
                    guard let sink = context.completions else {
                        context.logger.warning("complete called while no message is pending; ignored")
                        return
                    }
                    sink.complete(message, verdict: verdict, from: context.name)
                },
                log: { host, level, text in
                    PluginContext.of(host).logger.log(level: Logger.Level(level), "\(String(cString: text))")
                },
                current_token: { PluginContext.of($0).tokens.pointer },
                get_extension: { _, _ in nil }
            )
        )
        return UnsafePointer(table)
    }
}

extension Logger.Level {
    /// The swift-log level of a plugin's `ph_log_level`; unknown levels log as errors.
    init(_ level: ph_log_level) {
        switch level {
        case PH_LOG_DEBUG: self = .debug
        case PH_LOG_INFO: self = .info
        case PH_LOG_WARNING: self = .warning
        default: self = .error
        }
    }
}
