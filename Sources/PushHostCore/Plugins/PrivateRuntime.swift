#if canImport(Glibc)
import Glibc
#endif

/// The Swift runtime an installed pushhost carries (`make install` copies
/// it into `LIBDIR/pushhost/swift`, the folder its RUNPATH names), loaded
/// whole before the first plugin, so that a Swift plugin finds every
/// runtime library it links already loaded, by name, wherever it lies and
/// whatever RUNPATH its build gave it: one copy of the runtime in the
/// process, the host's, with no toolchain installed.
///
/// A host that runs from a build (its runtime in the toolchain) loads
/// nothing more: there, a plugin finds the toolchain's runtime itself.
enum PrivateRuntime {
    /// Loads it, once; what could not be loaded is left for the plugin's
    /// own `dlopen` to name.
    static let loaded: Void = {
        guard let folder = folder() else { return }
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("lib"), name.hasSuffix(".so") else { continue }
            _ = dlopen(folder + "/" + name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
        }
    }()

    /// The folder the host's `libswiftCore.so` came from, when it is a
    /// private one (`.../pushhost/swift`).
    private static func folder() -> String? {
        let core = MappedLibraries.paths().first { $0.hasSuffix("/libswiftCore.so") }
        guard let core, let slash = core.lastIndex(of: "/") else { return nil }
        let folder = String(core[..<slash])
        return folder.hasSuffix("/pushhost/swift") ? folder : nil
    }
}
