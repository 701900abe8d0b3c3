/// A handler call the watchdog gave up on, as the crash journal noted it:
/// the plugin, the handler, the record, and why the host gave up on it
/// (what the record's report line gives as its `error`).
package struct GivenUpCall {
    /// The plugin's number in load order.
    package let plugin: Int32
    /// Nil for a number the journal does not know.
    package let handler: PluginHandler?
    /// The record the call was made for; nil when the journal names none.
    package let source: RecordSource?
    /// `plugin faulty did not return from on_data within --handler-timeout 1.0s (the host exited with status 4)`.
    package let reason: String
    private let journal: CrashJournal

    /// The journal's call under way, given up for `reason`.
    package init(in journal: CrashJournal, reason: String) {
        self.journal = journal
        self.reason = reason
        plugin = journal.base.load(fromByteOffset: CrashJournal.Offset.plugin, as: Int32.self)
        handler = PluginHandler(rawValue: journal.base.load(fromByteOffset: CrashJournal.Offset.handler, as: Int32.self))
        source = journal.sourceUnderWay()
    }

    /// The name of plugin number `plugin`, as the journal holds it.
    package func name(of plugin: Int32) -> String {
        journal.pluginName(plugin)
    }
}

extension CrashJournal {
    /// Where the record of the call under way comes from, as `note` wrote it.
    func sourceUnderWay() -> RecordSource? {
        let number = Int(base.load(fromByteOffset: Offset.sourceNumber, as: Int64.self))
        let name = { self.read(at: Offset.sourceName, length: Offset.sourceNameLength) }
        switch base.load(fromByteOffset: Offset.sourceKind, as: Int32.self) {
        case 1: return .stdin(line: number)
        case 2: return .spool(file: name(), line: number > 0 ? number : nil)
        case 3: return .plugin(name: name(), record: number)
        default: return nil
        }
    }
}
