import CPushHost
import PushHostMessage
import PushHostPlugins
import PushHostRecords
import PushHostSystem

/// One plugin's handlers as a stage calls them: the one way to call a
/// handler, wherever the plugin runs.
///
/// In the host, a call is the plugin's own function, and it has ended when
/// it returns. In another process (``RemotePlugin``), a call is posted
/// there and returns at once: a data call answers `PH_PENDING` and its
/// verdict comes later to the data stage (``VerdictTaker``), and any other
/// call gives a ``Ticket`` that says when it ended. The stage that calls
/// never asks which: it waits for a verdict or a ticket alike.
///
/// Plain values, so that the dispatch thread calls a handler without
/// touching a Swift object (and so without reference counting per message).
@usableFromInline package struct Handler {
    @usableFromInline let state: UnsafeMutableRawPointer?
    @usableFromInline let raw: ph_plugin
    /// The plugin's number in load order, as the crash journal names it.
    @usableFromInline package let plugin: Int32
    /// Where the plugin runs when it does not run in the host.
    @usableFromInline package let remote: UnretainedRemote?
    /// The handlers it has, one bit for each ``PluginHandler``.
    @usableFromInline let present: UInt32

    package init(state: UnsafeMutableRawPointer?, raw: ph_plugin, plugin: Int32, handlers: Set<PluginHandler>, remote: (any RemotePlugin)? = nil) {
        self.state = state
        self.raw = raw
        self.plugin = plugin
        self.remote = remote.map(UnretainedRemote.init)
        present = handlers.reduce(0) { $0 | 1 << UInt32($1.rawValue) }
    }

    package init(_ plugin: PluginInstance) {
        self.init(state: plugin.state, raw: plugin.descriptor.raw, plugin: plugin.index, handlers: plugin.descriptor.handlers, remote: plugin.remote)
    }

    /// Whether the plugin has `handler`.
    @inlinable @inline(__always)
    package func has(_ handler: PluginHandler) -> Bool {
        present & 1 << UInt32(handler.rawValue) != 0
    }

    /// The handlers of `plugins`, in order, in memory the caller owns and
    /// frees with `deallocate()`: reading them takes no reference count.
    package static func table(_ plugins: [PluginInstance]) -> UnsafeMutableBufferPointer<Handler> {
        let table = UnsafeMutableBufferPointer<Handler>.allocate(capacity: max(plugins.count, 1))
        for (position, plugin) in plugins.enumerated() {
            (table.baseAddress! + position).initialize(to: Handler(plugin))
        }
        return UnsafeMutableBufferPointer(rebasing: table[..<plugins.count])
    }

    // MARK: Calls

    /// `on_data` on the message of `flight`: its verdict, or `PH_PENDING`
    /// when it comes later (through `complete` in the host, with the
    /// record from elsewhere). A call that runs in the host is noted in
    /// `journal` while it runs. One posted elsewhere returns at once and is
    /// watched there: it is noted only to be timed (`--metrics`).
    @inlinable @inline(__always)
    package func data(_ flight: InFlight, journal: CrashJournal) -> ph_verdict {
        let noted = remote == nil || journal.isTiming
        if noted { journal.enter(.onData, plugin: plugin, source: flight.message.source) }
        defer { if noted { journal.leave() } }
        if let remote { return remote.callData(flight) }
        return raw.on_data!(state, flight.message.opaque)
    }

    /// `on_background`, `on_target` or `on_mismatch` (`handler`) on
    /// `message`: nil when the call has ended, else the ticket of its end.
    /// Noted in `journal` as ``data(_:journal:)`` says.
    @inlinable @inline(__always)
    package func deliver(_ handler: PluginHandler, _ message: Message, journal: CrashJournal) -> Ticket? {
        let noted = remote == nil || journal.isTiming
        if noted { journal.enter(handler, plugin: plugin, source: message.source) }
        defer { if noted { journal.leave() } }
        if let remote { return remote.deliver(handler, message).map { Ticket(remote: remote, call: $0) } }
        switch handler {
        case .onBackground: raw.on_background!(state, message.opaque)
        case .onTarget: raw.on_target!(state, message.opaque)
        default: raw.on_mismatch!(state, message.opaque)
        }
        return nil
    }

    /// `on_action` on `message`: nil when the call has ended, else the ticket of its end.
    package func action(_ message: Message, action: String, input: String?) -> Ticket? {
        if let remote { return remote.plugin.post(.onAction, message.opaque, action, input).map { Ticket(remote: remote, call: $0) } }
        action.withCString { action in
            withOptionalCString(input) { input in raw.on_action!(state, message.opaque, action, input) }
        }
        return nil
    }

    /// `on_token`: nil when the call has ended, else the ticket of its end.
    package func token(_ token: String, previous: String?) -> Ticket? {
        if let remote { return remote.plugin.post(.onToken, nil, token, previous).map { Ticket(remote: remote, call: $0) } }
        token.withCString { token in
            withOptionalCString(previous) { previous in raw.on_token!(state, token, previous) }
        }
        return nil
    }
}
