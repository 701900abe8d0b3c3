/// What a reload compares of a plugin to tell whether it changed: the
/// files it is made of (its file; an ffi manifest's libraries; the files a
/// process manifest's command names in its folder), its settings as a run
/// gives them (its grants among them), and whether it runs in the host.
package struct PluginVersion: Equatable, Sendable {
    /// Each file, by path, with its stamp (nil: not there).
    let files: [String: FileStamp?]
    let settings: [String: String]
    package let isolated: Bool

    /// The version of the plugin `descriptor` read from `file`, with
    /// `settings` (its settings file's and the `--set` flags'), isolated or not.
    package init(file: String, descriptor: PluginDescriptor, settings: [String: String], isolated: Bool) {
        var paths = [file]
        if let ffi = descriptor.ffi { paths += ffi.libraries.filter { $0.contains("/") } }
        if let program = descriptor.process {
            paths += program.command.dropFirst().filter { !$0.hasPrefix("/") }.map { program.folder + "/" + $0 }
            if let first = program.command.first, first.contains("/"), !first.hasPrefix("/") { paths.append(program.folder + "/" + first) }
        }
        files = Dictionary(paths.map { ($0, FileStamp($0)) }) { first, _ in first }
        self.settings = settings
        self.isolated = isolated
    }

    /// What changed from `old`, as a reload says it (`settings`, `grants`,
    /// `file`, `isolation`, joined by commas); nil when nothing did.
    package func change(from old: PluginVersion) -> String? {
        var what: [String] = []
        if files != old.files { what.append("file") }
        let grants = { (settings: [String: String]) in settings.filter { $0.key.hasPrefix(SandboxGrants.prefix) } }
        let others = { (settings: [String: String]) in settings.filter { !$0.key.hasPrefix(SandboxGrants.prefix) } }
        if others(settings) != others(old.settings) { what.append("settings") }
        if grants(settings) != grants(old.settings) { what.append("grants") }
        if isolated != old.isolated { what.append("isolation") }
        return what.isEmpty ? nil : what.joined(separator: ", ")
    }
}
