#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// One plugin instance, as the host's `self` pointer: the Swift object and
/// the roles it plays, reached from the C handlers.
final class PluginBox: @unchecked Sendable {
    let context: PluginContext
    let plugin: any Plugin
    private let data: (any DataPlugin)?
    /// Where `data`'s handler calls run.
    private let dataHandlers: DataHandlers?
    private let background: (any BackgroundPlugin)?
    private let screen: (any ScreenPlugin)?
    private let token: (any TokenPlugin)?
    private let action: (any ActionPlugin)?
    private let interception: Interception?
    private let source: SourceRun?

    private init(
        plugin: any Plugin, context: PluginContext, chainAPI: UnsafePointer<ph_chain_api>?, intake: UnsafePointer<ph_intake>?
    ) {
        self.plugin = plugin
        self.context = context
        data = plugin as? any DataPlugin
        dataHandlers = data == nil ? nil : DataHandlers()
        background = plugin as? any BackgroundPlugin
        screen = plugin as? any ScreenPlugin
        token = plugin as? any TokenPlugin
        action = plugin as? any ActionPlugin
        interception = if let interceptor = plugin as? any Interceptor, let chainAPI {
            Interception(interceptor, api: chainAPI, context: context)
        } else {
            nil
        }
        source = if let producer = plugin as? any SourcePlugin, let intake {
            SourceRun(producer, intake: intake, context: context)
        } else {
            nil
        }
    }

    /// `create`: makes the exported type; a thrown error is logged and
    /// refuses the plugin, as does an interceptor on a host without
    /// `ph.chain/1`, or a source on one without `ph.intake/1`'s `submit_record`.
    static func create(host: UnsafePointer<ph_host>, config: OpaquePointer) -> UnsafeMutableRawPointer? {
        let context = PluginContext(host: host, config: config)
        guard let type = Exported.current?.type else { return nil }
        let intercepts = type is any Interceptor.Type
        let chainAPI = intercepts ? Interception.chainAPI(of: host) : nil
        if intercepts, chainAPI == nil {
            context.log("could not start: this host does not offer \(PH_EXT_CHAIN), which an interceptor needs", level: .error)
            return nil
        }
        let produces = type is any SourcePlugin.Type
        let intake = produces ? SourceRun.intake(of: host) : nil
        if produces, intake == nil {
            context.log("could not start: this host does not offer \(PH_EXT_INTAKE) with submit_record, which a source needs", level: .error)
            return nil
        }
        do {
            let box = PluginBox(plugin: try type.init(context: context), context: context, chainAPI: chainAPI, intake: intake)
            return Unmanaged.passRetained(box).toOpaque()
        } catch {
            context.log("could not start: \(error)", level: .error)
            return nil
        }
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> PluginBox {
        Unmanaged<PluginBox>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// `destroy`: the chains still under way end (each `proceed()` waiting
    /// returns `stopped`), a source's `run` and the data handlers still under
    /// way are cancelled and awaited, then the plugin's `shutdown`, then the
    /// instance goes. (A handler that ignores its cancellation keeps
    /// `destroy` waiting: the host gives up on it at its stop's deadline.)
    static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        let box = Unmanaged<PluginBox>.fromOpaque(pointer).takeRetainedValue()
        box.interception?.close()
        box.source?.finish()
        box.dataHandlers?.end()
        box.plugin.shutdown()
    }

    /// Runs the async data handler at once (see `DataHandlers`): its verdict
    /// when it gives one without suspending, else `PH_PENDING` and one
    /// `complete` when it does (see `DataCall`).
    func onData(_ message: OpaquePointer) -> ph_verdict {
        guard let data, let dataHandlers else { return PH_CONTINUE }
        let call = DataCall(data, context: context, handle: message)
        dataHandlers.run(call)
        return call.returned()
    }

    /// `on_background`, `on_target`, `on_mismatch`: the UI handler, with the
    /// message lent for the call.
    func onBackground(_ message: OpaquePointer) {
        guard let background else { return }
        lend(message) { try background.onBackground($0) }
    }

    func onTarget(_ message: OpaquePointer) {
        guard let screen else { return }
        lend(message) { try screen.onTarget($0) }
    }

    func onMismatch(_ message: OpaquePointer) {
        guard let screen else { return }
        lend(message) { try screen.onMismatch($0) }
    }

    /// `on_action`: the action, copied, and the message, lent for the call.
    func onAction(_ message: OpaquePointer, action id: UnsafePointer<CChar>, input: UnsafePointer<CChar>?) {
        guard let action else { return }
        let taken = Action(id: String(cString: id), input: input.map { String(cString: $0) })
        lend(message) { action.onAction(taken, message: $0) }
    }

    /// Calls the UI handler `body` with the host's message, lent until it
    /// returns; an error it throws fails the message.
    private func lend(_ message: OpaquePointer, to body: (Message) throws -> Void) {
        var storage = MessageStorage(host: context.host, handle: message)
        do {
            try body(Message(storage: storage))
        } catch {
            fail(message, because: error)
        }
        MessageStorage.endBorrow(&storage)
    }

    /// `fail` (ABI 1.2) for the message of a UI handler that threw; a host
    /// without it gets the reason only in its log.
    private func fail(_ message: OpaquePointer, because error: any Error) {
        let host = context.host
        guard covers(host, \.fail) else {
            context.log("\(error) (this host is older than ABI 1.2 and cannot fail the message)", level: .error)
            return
        }
        host.pointee.fail(host, message, "\(error)")
    }

    /// `get_extension`: the table of `ph.interceptor/1` or `ph.source/1`
    /// when the plugin plays that role.
    func extensionTable(_ id: UnsafePointer<CChar>) -> UnsafeRawPointer? {
        if interception != nil, strcmp(id, PH_EXT_INTERCEPTOR) == 0 { return UnsafeRawPointer(Interception.table) }
        if source != nil, strcmp(id, PH_EXT_SOURCE) == 0 { return UnsafeRawPointer(SourceRun.table) }
        return nil
    }

    /// `start` and `stop` (`ph.source/1`): see `SourceRun`.
    func startSource() -> Int32 {
        source?.start() ?? -1
    }

    func stopSource() {
        source?.stop()
    }

    /// `intercept` (`ph.interceptor/1`): the handler runs on `chain` (see `Interception`).
    func intercept(_ chain: OpaquePointer) {
        interception?.intercept(chain)
    }

    /// `on_outcome` (`ph.interceptor/1`): the report line of a message the plugin proceeded.
    func onOutcome(_ message: OpaquePointer, reportLine: UnsafePointer<CChar>) {
        interception?.outcome(of: message, reportLine: reportLine)
    }

    func onToken(_ token: UnsafePointer<CChar>, previous: UnsafePointer<CChar>?) {
        self.token?.onToken(String(cString: token), previous: previous.map { String(cString: $0) })
    }
}
