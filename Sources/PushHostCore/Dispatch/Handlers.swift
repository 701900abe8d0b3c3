import CPushHost

/// One plugin's handlers and state as plain values, so the dispatch thread
/// calls it without touching a Swift object (and so without reference
/// counting per message).
struct Handler {
    let state: UnsafeMutableRawPointer?
    let raw: ph_plugin

    init(_ plugin: PluginInstance) {
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
            (table.baseAddress! + position).initialize(to: Handler(plugin))
        }
        return UnsafeMutableBufferPointer(rebasing: table[..<plugins.count])
    }

    func deallocate() {
        data.deallocate()
        background.deallocate()
    }
}
