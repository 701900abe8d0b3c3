import CPushHost

/// A plugin that offers `ph.source/1`: it produces records through
/// `ph.intake/1` from its own threads, between `start` and `stop`. An
/// isolated one does so in its worker: `start` and `stop` are calls there,
/// and its records cross to the host (``IntakeRelay``).
struct SourcePlugin {
    let name: String
    private let place: Place

    private enum Place {
        case host(state: UnsafeMutableRawPointer?, table: ph_source)
        case worker(Worker)
    }

    /// The source `plugin` offers, nil when it offers none.
    ///
    /// - Throws: when the table it offers is too small to hold `start` and `stop`.
    init?(_ plugin: PluginInstance) throws(SetupError) {
        name = plugin.name
        if let worker = plugin.worker {
            // Its worker checked the table as below.
            guard worker.offers & WorkerFrame.offersSource != 0 else { return nil }
            place = .worker(worker)
            return
        }
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
        place = .host(state: plugin.state, table: offered.load(as: ph_source.self))
    }

    /// Calls `start`; false when it returned -1 (or anything but 0).
    func start() -> Bool {
        switch place {
        case .host(let state, let table): table.start(state) == 0
        case .worker(let worker): worker.callSource(.start) == 0
        }
    }

    func stop() {
        switch place {
        case .host(let state, let table): table.stop(state)
        case .worker(let worker): _ = worker.callSource(.stop)
        }
    }

}
