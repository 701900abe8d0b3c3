import CPushHost
import Dispatch
import Synchronization

/// The interceptor role of one plugin instance: the host's chain API, and
/// the chains under way, from `intercept` until the plugin's handler
/// returns, so that `on_outcome` finds the chain whose `proceed()` waits for
/// it, and `destroy` ends the others and waits for their handlers.
final class Interception: @unchecked Sendable {
    /// The host's `ph.chain/1`; its functions may be called from any thread
    /// until `destroy` returns.
    let api: ph_chain_api
    let context: PluginContext
    private let plugin: any Interceptor
    private let chains = Mutex<[Entry]>([])

    /// A chain under way, and, from its proceed until its outcome, its host
    /// message and that message's id, which `on_outcome` matches (the
    /// message is only compared, never read, hence `@unchecked Sendable`).
    private struct Entry: @unchecked Sendable {
        let chain: Chain
        var message: (handle: OpaquePointer, id: String)?
    }

    init(_ plugin: any Interceptor, api: UnsafePointer<ph_chain_api>, context: PluginContext) {
        self.plugin = plugin
        self.api = api.pointee
        self.context = context
    }

    /// The `ph_interceptor` table every instance offers (the instance is
    /// its `self`), made once and kept for the life of the process.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<ph_interceptor> = {
        let table = UnsafeMutablePointer<ph_interceptor>.allocate(capacity: 1)
        table.initialize(to: ph_interceptor(
            struct_size: UInt32(MemoryLayout<ph_interceptor>.size),
            intercept: { box, chain in PluginBox.from(box).intercept(chain) },
            on_outcome: { box, message, line in PluginBox.from(box).onOutcome(message, reportLine: line) }))
        return table
    }()

    /// The host's `ph.chain/1`, or nil when it does not offer one that
    /// covers `stop`, its last function (an older host).
    static func chainAPI(of host: UnsafePointer<ph_host>) -> UnsafePointer<ph_chain_api>? {
        guard let api = host.pointee.get_extension(host, PH_EXT_CHAIN)?.assumingMemoryBound(to: ph_chain_api.self),
              covers(api, \.stop) else { return nil }
        return api
    }

    /// `intercept`: the chain is under way, and the plugin's handler starts
    /// at once (`Task.immediate`), on the host's thread until it first
    /// suspends: one that proceeds or returns before that does so during
    /// this call.
    func intercept(_ raw: OpaquePointer) {
        let chain = Chain(raw, interception: self)
        chains.withLock { $0.append(Entry(chain: chain)) }
        Task.immediate { [plugin] in await chain.run(plugin) }
    }

    /// `chain` is about to call the host's `proceed` for `message`: its
    /// outcome will come through `on_outcome`.
    func proceeding(_ chain: Chain, message: OpaquePointer) {
        let id = String(cString: context.host.pointee.message_id(message))
        chains.withLock { entries in
            if let index = entries.lastIndex(where: { $0.chain === chain }) { entries[index].message = (message, id) }
        }
    }

    /// The plugin's handler for `chain` returned: the chain is no longer under way.
    func finished(_ chain: Chain) {
        chains.withLock { entries in
            if let index = entries.firstIndex(where: { $0.chain === chain }) { entries.remove(at: index) }
        }
    }

    /// `on_outcome`: the report line of `message` goes to the chain that
    /// proceeded it: the one with the same host message and id, else (the
    /// host made a new message meanwhile) the first with the same id.
    func outcome(of message: OpaquePointer, reportLine: UnsafePointer<CChar>) {
        let id = String(cString: context.host.pointee.message_id(message))
        let chain = chains.withLock { entries -> Chain? in
            guard let index = entries.firstIndex(where: { $0.message?.handle == message && $0.message?.id == id })
                ?? entries.firstIndex(where: { $0.message?.id == id }) else { return nil }
            entries[index].message = nil
            return entries[index].chain
        }
        guard let chain else {
            context.log("an outcome for message \(id), which this plugin did not pass on: ignored", level: .warning)
            return
        }
        chain.deliver(Outcome(reportLine: String(cString: reportLine)))
    }

    /// `destroy`: ends every chain still under way, so that no call reaches
    /// the host after it, resumes every `proceed()` waiting with `stopped`,
    /// and waits for the handlers whose message was passed on or stopped to
    /// return, so that the plugin's `shutdown` comes after them. (A handler
    /// that still holds its message is not waited for: its `proceed()` will
    /// return `stopped`.)
    func close() {
        let entries = chains.withLock { $0 }
        let shutdown = DispatchGroup()
        for entry in entries { entry.chain.close(shutdown) }
        shutdown.wait()
    }
}
