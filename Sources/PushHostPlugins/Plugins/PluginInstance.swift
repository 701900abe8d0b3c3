import CPushHost
import Logging
import PushHostSystem

/// One created plugin: its descriptor, its own `ph_host`, and the state its
/// `create` returned, which every handler receives first.
package final class PluginInstance {
    package let file: String
    /// The plugin's descriptor; for a plugin elsewhere, as its scan read it.
    private(set) package var descriptor: PluginDescriptor
    package let context: PluginContext
    let settings: PluginSettings
    let host: UnsafePointer<ph_host>
    /// Its number among the created plugins, in load order.
    package let index: Int32
    /// Where it runs when not in the host (in a worker: `--isolate`).
    package let remote: (any RemotePlugin)?
    private(set) package var state: UnsafeMutableRawPointer?
    /// What a reload compares to tell whether it changed.
    package var version: PluginVersion?
    /// How many reloads the host had made when this instance was created.
    package var generation = 0

    package var name: String { descriptor.name }
    package var roles: [PluginRole] { descriptor.roles }

    package init(file: String, descriptor: PluginDescriptor, context: PluginContext, settings: PluginSettings, index: Int32, remote: (any RemotePlugin)? = nil) {
        self.file = file
        self.index = index
        self.descriptor = descriptor
        self.context = context
        self.settings = settings
        self.remote = remote
        self.host = HostTable.make(for: context)
    }

    /// Calls `create` (an ffi plugin's `init`); a plugin without one has no
    /// state and always succeeds. An isolated plugin is created in its
    /// worker. A plugin created here whose descriptor a scan read is opened
    /// here first, and refused when it says otherwise than its scan.
    package func create() throws(PluginRefusal) {
        if let remote { return try remote.start() }
        if descriptor.isScanned { try openHere() }
        if let ffi = descriptor.ffi {
            state = try ffi.start(host: host)
            return
        }
        guard let create = descriptor.raw.create else { return }
        context.creating = true
        let made = create(host, settings.opaque)
        context.creating = false
        guard let state = made else { throw .createFailed }
        self.state = state
    }

    /// Refuses the created plugin, and destroys it, when it declares
    /// extensions (ABI 1.2) and offers one it does not declare. One it
    /// declares and does not offer is its choice (the desktop plugin is no
    /// source with `actions=false`). An isolated plugin's worker says what
    /// its plugin offers.
    package func checkDeclaredExtensions() throws(PluginRefusal) {
        guard let declared = descriptor.extensions else { return }
        for (id, flag) in [(PH_EXT_INTERCEPTOR, RemoteOffers.interceptor), (PH_EXT_SOURCE, RemoteOffers.source)] {
            let offered = if let remote { remote.offers.contains(flag) } else { plugInExtension(id) != nil }
            if offered && !declared.contains(id) {
                destroy()
                throw .undeclaredExtension(id)
            }
        }
    }

    /// Opens the plugin's file in this process. Its permissions were checked,
    /// and a doubt about them logged, when its scan read it: they are checked
    /// again without a word.
    private func openHere() throws(PluginRefusal) {
        var warned: Set<String> = []
        let opened = try PluginCatalog.open(file, warned: &warned, logger: Logger(label: name) { _ in SwiftLogNoOpLogHandler() })
        if let difference = descriptor.difference(from: opened) { throw .differsFromScan(difference) }
        descriptor = opened
    }

    /// Calls `destroy`, once (elsewhere: and waits for the worker to end,
    /// `--stop-timeout` at most).
    package func destroy() {
        if let remote {
            remote.beginStop()
            _ = remote.finishStop(by: MonotonicClock.now() &+ UInt64(max(remote.stopTimeout, 1) * 1e9))
            return
        }
        descriptor.raw.destroy?(state)
        state = nil
    }

    /// The table the plugin offers for extension `id`, or nil.
    package func plugInExtension(_ id: String) -> UnsafeRawPointer? {
        descriptor.raw.get_extension?(state, id)
    }

}

extension [PluginInstance] {
    /// `value` of each plugin at its number (the crash journal's and the
    /// metrics' slots), `none` at a number no plugin has (a reload frees some).
    package func byNumber<T>(_ value: (PluginInstance) -> T, none: T) -> [T] {
        let count = Int(map(\.index).max() ?? -1) + 1
        return (0..<count).map { number in first { $0.index == number }.map(value) ?? none }
    }
}
