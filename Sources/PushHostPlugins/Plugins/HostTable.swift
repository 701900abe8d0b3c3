#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostIntake
import PushHostMessage
import PushHostRecords
import PushHostSystem

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
                message_id: { Message.idText($0) },
                message_target: { Message.targetText($0) },
                message_get: { Message.value($0, atPath: $1) },
                message_json: { message, length in
                    let json = Message.jsonText(message)
                    length?.pointee = json.count
                    return json.text
                },
                config_get: { PluginSettings.from($0).value($1) },
                complete: { host, message, verdict in
                    let context = PluginContext.of(host)
                    guard let sink = context.verdicts else {
                        context.logger.warning("complete called while no message is pending; ignored")
                        return
                    }
                    sink.post(Completion(address: UInt(bitPattern: UnsafeRawPointer(message)), verdict: verdict, plugin: context.name))
                },
                log: { host, level, text in
                    PluginContext.of(host).logger.log(level: Logger.Level(level), "\(String(cString: text))")
                },
                current_token: { PluginContext.of($0).tokens.pointer },
                get_extension: { host, id in HostExtensions.find(id, for: PluginContext.of(host)) },
                fail: { host, message, reason in
                    Message.noteProblem(message, "\(PluginContext.of(host).name): \(String(cString: reason))")
                },
                message_get_many: { message, paths, count, values in Message.values(message, atPaths: paths, count: count, into: values) }
            )
        )
        return UnsafePointer(table)
    }
}

/// The extensions the host offers every plugin through `get_extension`.
enum HostExtensions {
    /// `ph.intake/1`: any plugin may hand the host records (messages, and
    /// host events of its own through `submit_record`).
    nonisolated(unsafe) static let intake: UnsafeMutablePointer<ph_intake> = {
        let table = UnsafeMutablePointer<ph_intake>.allocate(capacity: 1)
        table.initialize(to: ph_intake(
            struct_size: UInt32(MemoryLayout<ph_intake>.size),
            // 1.1's submit: a message, waiting while the host is full.
            submit: { host, json, length, done, context in submit(host, json, length, 0, 0, done, context) },
            submit_record: { host, json, length, flags, done, context in submit(host, json, length, flags, 0, done, context) },
            submit_record_at: { host, json, length, flags, arrival, done, context in
                submit(host, json, length, flags, arrival, done, context)
            }
        ))
        return table
    }()

    /// `submit_record_at`, for the plugin that `host` is.
    private static func submit(
        _ host: UnsafePointer<ph_host>, _ json: UnsafePointer<CChar>, _ length: Int, _ flags: UInt32, _ arrival: Int64,
        _ done: PluginSubmissions.Done?, _ context: UnsafeMutableRawPointer?
    ) -> Int32 {
        let plugin = PluginContext.of(host)
        return plugin.submissions.submit(
            UnsafeRawBufferPointer(start: json, count: length), from: plugin.name, flags: flags, arrival: arrival, done: done,
            context: context
        ).rawValue
    }

    /// The table for `id` that the plugin of `context` gets, or NULL when
    /// the host does not offer it.
    static func find(_ id: UnsafePointer<CChar>, for context: PluginContext) -> UnsafeRawPointer? {
        if strcmp(id, PH_EXT_INTAKE) == 0 { return UnsafeRawPointer(intake) }
        if strcmp(id, PH_EXT_CHAIN) == 0 { return UnsafeRawPointer(context.chain) }
        if strcmp(id, PH_EXT_STATE) == 0 { return UnsafeRawPointer(PluginStateFolder.table) }
        if strcmp(id, PH_EXT_METRICS) == 0 { return UnsafeRawPointer(PluginMetricsTable.table) }
        if strcmp(id, PH_EXT_BUS) == 0 { return UnsafeRawPointer(BusAccess.table) }
        return nil
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
