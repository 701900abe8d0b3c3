extension PluginCatalog {
    /// The real paths of the libraries that the ffi manifests among `paths`
    /// name by file, so that a library kept beside its manifest in a plugin
    /// folder is not taken for a plugin. A manifest that cannot be read
    /// names nothing here (its refusal comes when it is loaded).
    static func manifestLibraries(among paths: [String]) -> Set<String> {
        var libraries: Set<String> = []
        for path in paths where path.hasSuffix(FFIManifest.suffix) {
            guard let manifest = try? FFIManifest.read(path) else { continue }
            let folder = directory(of: path)
            let functions = manifest.handlers.map(\.function) + [manifest.initFunction, manifest.finiFunction].compactMap { $0 }
            for function in functions {
                let located = FFILibraries.locate(function.library, folder: folder)
                if located.contains("/"), let real = realPath(located) { libraries.insert(real) }
            }
        }
        return libraries
    }
}
