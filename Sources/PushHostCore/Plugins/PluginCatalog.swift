import Logging

/// Every plugin file asked for, in load order, each either loadable or
/// refused with its reason.
///
/// Checks that span plugins run here, in load order, so the later of two
/// plugins is the one refused: a name already taken, a target already
/// claimed. Nothing is created: the catalog reads descriptors and settings
/// only, which is all `pushhost plugins` needs. Before a file is opened, its
/// permissions and its directory's are checked (`checkPermissions`). A
/// shared library that an ffi manifest among the paths calls is not itself
/// loaded as a plugin.
package struct PluginCatalog {
    /// One plugin file and what became of it.
    package struct Entry {
        package let file: String
        let outcome: Result<Loadable, PluginRefusal>

        package var refusal: PluginRefusal? {
            if case .failure(let refusal) = outcome { refusal } else { nil }
        }
    }

    /// A plugin that passed every check, with its settings file read.
    struct Loadable {
        let descriptor: PluginDescriptor
        let settings: [String: String]
    }

    package let entries: [Entry]

    package var refused: [Entry] { entries.filter { $0.refusal != nil } }

    /// Checks each of `paths`, in order; a doubt that refuses nothing (a
    /// plugin in a sticky world-writable directory) is logged to `logger`.
    package init(paths: [String], logger: Logger = Logger(label: "pushhost")) {
        var warned: Set<String> = []
        var names: [String: String] = [:]
        var claims: [String: String] = [:]
        var entries: [Entry] = []
        let libraries = Self.manifestLibraries(among: paths)
        for path in paths {
            // A manifest's own library, beside it in a plugin folder, is no plugin.
            if !libraries.isEmpty, !path.hasSuffix(FFIManifest.suffix), let real = Self.realPath(path), libraries.contains(real) {
                continue
            }
            let outcome = Result { () throws(PluginRefusal) -> Loadable in
                try Self.checkPermissions(of: path, warned: &warned, logger: logger)
                let isManifest = path.hasSuffix(FFIManifest.suffix)
                let descriptor = isManifest
                    ? try FFIPlugin.load(path) { library throws(PluginRefusal) in try Self.checkPermissions(of: library, warned: &warned, logger: logger) }
                    : try PluginLibrary.open(path)
                if let other = names[descriptor.name] { throw .duplicateName(descriptor.name, file: other) }
                for target in descriptor.targets {
                    if let owner = claims[target] { throw .targetClaimed(target, by: owner) }
                }
                let settings = isManifest ? [:] : try SettingsFile.read(besides: path)
                names[descriptor.name] = path
                for target in descriptor.targets { claims[target] = descriptor.name }
                return Loadable(descriptor: descriptor, settings: settings)
            }
            entries.append(Entry(file: path, outcome: outcome))
        }
        self.entries = entries
    }
}
