#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// `ph.state/1`: a folder of each plugin's own in the state directory,
/// `STATE/plugins/NAME`, for what it keeps across restarts.
///
/// Made with mode 0700 (and `STATE/plugins` too) on the first call; a
/// symbolic link or anything but a directory in either place is refused,
/// with a log line naming it:
///
/// ```
/// error unifiedpush: no state folder: /var/lib/pushhost/plugins/unifiedpush is a symbolic link, which pushhost does not follow
/// ```
package enum PluginStateFolder {
    /// The host's table, the same for every plugin (the plugin is told
    /// apart by its host table).
    nonisolated(unsafe) static let table: UnsafeMutablePointer<ph_state> = {
        let table = UnsafeMutablePointer<ph_state>.allocate(capacity: 1)
        table.initialize(to: ph_state(
            struct_size: UInt32(MemoryLayout<ph_state>.size),
            directory: { host in PluginContext.of(host).stateFolder() }
        ))
        return table
    }()

    /// Makes `path` a directory of mode 0700 unless it is one; nil, or why not.
    package static func make(_ path: String) -> String? {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            return "cannot create \(path): \(String(cString: strerror(errno)))"
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return "cannot read \(path): \(String(cString: strerror(errno)))" }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return nil
        case S_IFLNK: return "\(path) is a symbolic link, which pushhost does not follow"
        default: return "\(path) is not a directory"
        }
    }
}

extension PluginContext {
    /// This plugin's state folder as a C string kept for the run, made on
    /// the first call; nil (logged) when it cannot be made.
    func stateFolder() -> UnsafePointer<CChar>? {
        folder.withLock { held in
            if let held { return held }
            let plugins = tokens.directory + "/plugins"
            let path = plugins + "/" + name
            if let problem = PluginStateFolder.make(plugins) ?? PluginStateFolder.make(path) {
                logger.error("no state folder: \(problem)")
                return nil
            }
            held = UnsafePointer(strdup(path)!)
            return held
        }
    }
}
