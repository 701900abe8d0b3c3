import CPushHost

/// A plugin that offers `ph.source/1`: it produces records through
/// `ph.intake/1` from its own threads, between `start` and `stop`.
struct SourcePlugin {
    let name: String
    private let state: UnsafeMutableRawPointer?
    private let table: ph_source

    /// The source `plugin` offers, nil when it offers none.
    ///
    /// - Throws: when the table it offers is too small to hold `start` and `stop`.
    init?(_ plugin: PluginInstance) throws(SetupError) {
        guard let offered = plugin.plugInExtension(PH_EXT_SOURCE) else { return nil }
        let size = offered.load(as: UInt32.self)
        guard Int(size) >= MemoryLayout<ph_source>.size else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_SOURCE) table is \(size) bytes, too small for start and stop")
        }
        for field in [\ph_source.start, \ph_source.stop] as [PartialKeyPath<ph_source>] {
            guard offered.load(fromByteOffset: MemoryLayout<ph_source>.offset(of: field)!, as: UnsafeRawPointer?.self) != nil else {
                throw SetupError("plugin \(plugin.name): its \(PH_EXT_SOURCE) table lacks start or stop")
            }
        }
        name = plugin.name
        state = plugin.state
        table = offered.load(as: ph_source.self)
    }

    /// Calls `start`; false when it returned -1 (or anything but 0).
    func start() -> Bool {
        table.start(state) == 0
    }

    func stop() {
        table.stop(state)
    }
}
