import CPushHost
import PushHostRecords
import PushHostSystem

/// A plugin that offers `ph.source/1`: it produces records through
/// `ph.intake/1` from its own threads, between `start` and `stop`. An
/// isolated one does so in its worker: `start` and `stop` are calls there,
/// and its records cross to the host (``IntakeRelay``).
package struct SourcePlugin {
    package let name: String
    /// The plugin's number.
    package let index: Int32
    private let place: Place

    typealias StartFunction = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias StopFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private enum Place {
        case host(state: UnsafeMutableRawPointer?, start: StartFunction, stop: StopFunction)
        case elsewhere(any RemotePlugin)
    }

    /// The source `plugin` offers, nil when it offers none.
    ///
    /// - Throws: when the table it offers does not hold `start` and `stop`
    ///   (too small, or NULL); a larger one, from a newer header, is read
    ///   as far as this host knows it.
    package init?(_ plugin: PluginInstance) throws(SetupError) {
        name = plugin.name
        index = plugin.index
        if let remote = plugin.remote {
            // Its worker checked the table as below.
            guard remote.offers.contains(.source) else { return nil }
            place = .elsewhere(remote)
            return
        }
        guard let offered = plugin.plugInExtension(PH_EXT_SOURCE) else { return nil }
        let table = ExtensionTable<ph_source>(offered)
        guard let start = table.function(\.start), let stop = table.function(\.stop) else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_SOURCE) table (\(table.size) bytes) lacks start or stop")
        }
        place = .host(state: plugin.state, start: start, stop: stop)
    }

    /// Calls `start`; false when it returned -1 (or anything but 0).
    package func start() -> Bool {
        switch place {
        case .host(let state, let start, _): start(state) == 0
        case .elsewhere(let remote): remote.callSource(.start) == 0
        }
    }

    /// Calls `stop`; one in the host is noted in `journal` (the host's) as
    /// a call under way, for the watchdog.
    package func stop(journal: CrashJournal? = nil) {
        switch place {
        case .host(let state, _, let stop):
            journal?.enterStop(.stop, plugin: index)
            stop(state)
            journal?.leave()
        case .elsewhere(let remote): _ = remote.callSource(.stop)
        }
    }
}
