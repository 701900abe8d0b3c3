import CPushHost

/// One plugin's handlers and state as plain values, so the dispatch thread
/// calls it without touching a Swift object (and so without reference
/// counting per message).
struct Handler {
    let state: UnsafeMutableRawPointer?
    let raw: ph_plugin
    /// The plugin's number in load order, as the crash journal names it.
    let plugin: Int32

    init(state: UnsafeMutableRawPointer?, raw: ph_plugin, plugin: Int32) {
        self.state = state
        self.raw = raw
        self.plugin = plugin
    }

    init(_ plugin: PluginInstance) {
        self.init(state: plugin.state, raw: plugin.descriptor.raw, plugin: plugin.index)
    }

    /// The handlers of `plugins`, in order, in memory the caller owns and
    /// frees with `deallocate()`: reading them takes no reference count.
    static func table(_ plugins: [PluginInstance]) -> UnsafeMutableBufferPointer<Handler> {
        let table = UnsafeMutableBufferPointer<Handler>.allocate(capacity: max(plugins.count, 1))
        for (position, plugin) in plugins.enumerated() {
            (table.baseAddress! + position).initialize(to: Handler(plugin))
        }
        return UnsafeMutableBufferPointer(rebasing: table[..<plugins.count])
    }
}
