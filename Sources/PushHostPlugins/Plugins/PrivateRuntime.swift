#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostSystem

/// The Swift runtime an installed pushhost carries (`make install` copies
/// it into `LIBDIR/pushhost/swift`, the folder its RUNPATH names), loaded
/// whole before the first plugin, so that a Swift plugin finds every
/// runtime library it links already loaded, by name, wherever it lies and
/// whatever RUNPATH its build gave it: one copy of the runtime in the
/// process, the host's, with no toolchain installed.
///
/// A host that runs from a build (its runtime in the toolchain) loads
/// nothing more: there, a plugin finds the toolchain's runtime itself.
///
/// It loads only what no one but root or the host's user could have
/// written: the folder and each file owned by one of them and writable by
/// no group and no other user; a file refused is named, and left out:
///
/// ```
/// warning pushhost: private runtime: refused /usr/lib/pushhost/swift/libswiftObservation.so: writable by group or others (mode 0664)
/// ```
enum PrivateRuntime {
    /// Loads it, once; what could not be loaded is left for the plugin's
    /// own `dlopen` to name.
    static let loaded: Void = {
        guard let folder = folder() else { return }
        let logger = Logger(label: PluginDescriptor.hostName)
        if let why = refusal(of: folder, kind: S_IFDIR) { return logger.warning("private runtime: refused \(folder): \(why)") }
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("lib"), name.hasSuffix(".so") else { continue }
            let path = folder + "/" + name
            if let why = refusal(of: path, kind: S_IFREG) {
                logger.warning("private runtime: refused \(path): \(why)")
                continue
            }
            _ = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
        }
    }()

    /// Why `path` (a file or folder as `kind` says, not a link) may not be
    /// loaded from, or nil when it may: another owner than root or the
    /// host's user, or writable by group or others.
    static func refusal(of path: String, kind: mode_t) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == kind else { return kind == S_IFDIR ? "not a folder" : "not a regular file" }
        guard info.st_uid == 0 || info.st_uid == geteuid() else { return "owned by uid \(info.st_uid), neither root nor the host's user" }
        guard info.st_mode & 0o022 == 0 else { return "writable by group or others (mode \(PluginRefusal.octal(info.st_mode)))" }
        return nil
    }

    /// The folder the host's `libswiftCore.so` came from, when it is a
    /// private one (`.../pushhost/swift`).
    private static func folder() -> String? {
        let core = MappedLibraries.paths().first { $0.hasSuffix("/libswiftCore.so") }
        guard let core, let slash = core.lastIndex(of: "/") else { return nil }
        let folder = String(core[..<slash])
        return folder.hasSuffix("/pushhost/swift") ? folder : nil
    }
}
