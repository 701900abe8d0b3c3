import CPushHost

/// One plugin's handlers and state as plain values, so the dispatch thread
/// calls it without touching a Swift object (and so without reference
/// counting per message).
struct Handler {
    /// The plugin's position in the list its table was made from (the
    /// data plugins, the background plugins, the visible screens), where
    /// the report finds its name.
    let position: Int
    let state: UnsafeMutableRawPointer?
    let raw: ph_plugin

    init(_ plugin: PluginInstance, position: Int) {
        self.position = position
        state = plugin.state
        raw = plugin.descriptor.raw
    }
}

/// The data and background handlers in load order, in memory the
/// dispatcher owns: reading them takes no reference count.
struct Handlers {
    let data: UnsafeMutableBufferPointer<Handler>
    let background: UnsafeMutableBufferPointer<Handler>

    init(_ plugins: PluginSet) {
        data = Self.table(plugins.data)
        background = Self.table(plugins.background)
    }

    private static func table(_ plugins: [PluginInstance]) -> UnsafeMutableBufferPointer<Handler> {
        let table = UnsafeMutableBufferPointer<Handler>.allocate(capacity: max(plugins.count, 1))
        for (position, plugin) in plugins.enumerated() {
            (table.baseAddress! + position).initialize(to: Handler(plugin, position: position))
        }
        return UnsafeMutableBufferPointer(rebasing: table[..<plugins.count])
    }

    func deallocate() {
        data.deallocate()
        background.deallocate()
    }
}
