import Logging

/// Every plugin file asked for, in load order, each either loadable or
/// refused with its reason.
///
/// Checks that span plugins run here, in load order, so the later of two
/// plugins is the one refused: a name already taken, a target already
/// claimed. Nothing is created: the catalog reads descriptors and settings
/// only, which is all `pushhost plugins` needs (with `--check`, a ``DryRun``
/// creates them). Before a file is read, its
/// permissions and its directory's are checked (`checkPermissions`), and its
/// settings file is read. A file that `isolation` says a run may isolate is
/// read by a scan in a worker (``PluginScans``), all such scans at once, so
/// that none of its code runs in this process; the others are opened here.
/// A shared library that an ffi manifest among the paths calls is not itself
/// loaded as a plugin.
package struct PluginCatalog {
    /// One plugin file and what became of it.
    package struct Entry {
        package let file: String
        package let outcome: Result<Loadable, PluginRefusal>

        package var refusal: PluginRefusal? {
            if case .failure(let refusal) = outcome { refusal } else { nil }
        }
    }

    /// A plugin that passed every check, with its settings file read.
    package struct Loadable {
        package let descriptor: PluginDescriptor
        package let settings: [String: String]

        /// Its settings as a run gives them: its settings file's, then the
        /// `--set NAME.KEY=VALUE` among `overrides` that name it.
        package func settings(with overrides: [SettingOverride]) -> [String: String] {
            SandboxGrants.merge(settings, overrides.filter { $0.plugin == descriptor.name }.map { ($0.key, $0.value) })
        }
    }

    package let entries: [Entry]
    /// Which plugins a run isolates, and the `--set` flags: what the listing says of each.
    package let isolation: IsolationOptions
    package let overrides: [SettingOverride]

    package var refused: [Entry] { entries.filter { $0.refusal != nil } }

    /// Reads the descriptors of plugin files in other processes (in
    /// workers, behind their walls), one result for each file, in order.
    package typealias Scanner = (_ files: [String], _ isolation: IsolationOptions) -> [Result<PluginDescriptor, PluginRefusal>]

    /// Checks each of `paths`, in order; a doubt that refuses nothing (a
    /// plugin in a sticky world-writable directory) is logged to `logger`.
    /// The files that `isolation` says to read elsewhere are read by `scan`
    /// (without one, here).
    package init(
        paths: [String], isolation: IsolationOptions = IsolationOptions(), overrides: [SettingOverride] = [], scan: Scanner? = nil,
        logger: Logger = Logger(label: "pushhost")
    ) {
        self.isolation = isolation
        self.overrides = overrides
        var warned: Set<String> = []
        let libraries = Self.manifestLibraries(among: paths)
        // First what needs no code of the plugin: its permissions and its settings.
        var files: [(path: String, settings: Result<[String: String], PluginRefusal>)] = []
        for path in paths {
            // A manifest's own library, beside it in a plugin folder, is no plugin.
            if !libraries.isEmpty, !path.hasSuffix(FFIManifest.suffix), let real = Self.realPath(path), libraries.contains(real) {
                continue
            }
            files.append((path, Result { () throws(PluginRefusal) -> [String: String] in
                try Self.checkPermissions(of: path, warned: &warned, logger: logger)
                return try SettingsFile.of(plugin: path)
            }))
        }
        // A process manifest is JSON alone, read here: its program starts only to run.
        let outside = scan == nil ? [] : files.indices.filter { index in
            !files[index].path.hasSuffix(ProcessManifest.suffix)
                && (try? files[index].settings.get()).map { isolation.scansInWorker(settings: $0, overrides: overrides) } ?? false
        }
        let scanned = Dictionary(uniqueKeysWithValues: zip(outside, scan?(outside.map { files[$0].path }, isolation) ?? []))

        var names: [String: String] = [:]
        var claims: [String: String] = [:]
        var entries: [Entry] = []
        for (index, file) in files.enumerated() {
            let outcome = Result { () throws(PluginRefusal) -> Loadable in
                let settings = try file.settings.get()
                let descriptor = if let scan = scanned[index] { try scan.get() } else { try Self.open(file.path, warned: &warned, logger: logger) }
                if let other = names[descriptor.name] { throw .duplicateName(descriptor.name, file: other) }
                for target in descriptor.targets {
                    if let owner = claims[target] { throw .targetClaimed(target, by: owner) }
                }
                names[descriptor.name] = file.path
                for target in descriptor.targets { claims[target] = descriptor.name }
                return Loadable(descriptor: descriptor, settings: settings)
            }
            entries.append(Entry(file: file.path, outcome: outcome))
        }
        self.entries = entries
    }

    /// The flags a run refuses, each as the line that says why: a `--set`
    /// among `overrides` or an `--isolate NAME` of `isolation` that names no
    /// loadable plugin, and a `--set` for an ffi manifest that is no
    /// `sandbox.*` grant (a manifest takes no other setting).
    package func strayFlags(overrides: [SettingOverride], isolation: IsolationOptions) -> [String] {
        let loadable = entries.compactMap { try? $0.outcome.get() }
        let names = Set(loadable.filter { !$0.descriptor.isManifest }.map(\.descriptor.name))
        let manifests = Set(loadable.filter { $0.descriptor.isManifest }.map(\.descriptor.name))
        var problems: [String] = []
        // A manifest takes the grants of its walls (sandbox.*) and nothing else.
        for override in overrides where !names.contains(override.plugin) && !(manifests.contains(override.plugin) && override.key.hasPrefix(SandboxGrants.prefix)) {
            problems.append(manifests.contains(override.plugin)
                ? "--set \(override.plugin).\(override.key): \(override.plugin) is an ffi manifest, which takes no settings (its arguments are in the manifest)"
                : "--set \(override.plugin).\(override.key): no plugin named \(override.plugin) is loaded")
        }
        for name in isolation.names.sorted() where !names.contains(name) && !manifests.contains(name) {
            problems.append("--isolate \(name): no plugin named \(name) is loaded")
        }
        return problems
    }

    /// Opens the plugin file at `path` in this process: a shared library's
    /// descriptor, the plugin an ffi manifest makes (each library it
    /// opens by path checked first, as a plugin file is), or the plugin a
    /// process manifest makes (whose program is not started here). With
    /// `apart`, its libraries are copies of their own (``LibraryVersions``).
    package static func open(_ path: String, warned: inout Set<String>, logger: Logger, apart: Bool = false) throws(PluginRefusal) -> PluginDescriptor {
        if path.hasSuffix(ProcessManifest.suffix) { return try ProcessManifest.read(path).descriptor() }
        guard path.hasSuffix(FFIManifest.suffix) else { return try PluginLibrary.open(path, apart: apart) }
        return try FFIPlugin.load(path, apart: apart) { library throws(PluginRefusal) in try checkPermissions(of: library, warned: &warned, logger: logger) }
    }
}
