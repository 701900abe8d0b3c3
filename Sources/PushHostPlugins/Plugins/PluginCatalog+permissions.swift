#if canImport(Glibc)
import Glibc
#endif
import Logging

extension PluginCatalog {
    /// Refuses a plugin file that someone other than its owner could change
    /// before it is loaded: a file writable by group or others, or a file in
    /// a directory that others can write without the sticky bit. A
    /// directory others can write but with the sticky bit (like `/tmp`),
    /// where only a file's owner can replace it, is allowed with one warning
    /// per directory:
    ///
    /// ```
    /// error pushhost: refused plugin /opt/ph/cache.so: writable by group or others (mode 0666): ...
    /// warning pushhost: plugin directory /tmp is writable by others (mode 01777); its sticky bit keeps others from replacing files, but keep plugins in a directory only their owner can write
    /// ```
    ///
    /// What is checked is what `dlopen` maps: `path` followed through
    /// symbolic links, and both the directory naming it and the directory
    /// of the file it leads to, each named by its real path. A path that
    /// cannot be examined is left to `dlopen` to refuse with its own words.
    static func checkPermissions(of path: String, warned: inout Set<String>, logger: Logger) throws(PluginRefusal) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if info.st_mode & 0o022 != 0 { throw .writableFile(mode: info.st_mode) }
        // Both directories by their real paths, so one directory is checked (and named) once.
        var directories: [String] = []
        for directory in [realPath(directory(of: path)), realPath(path).map(directory(of:))] {
            if let directory, !directories.contains(directory) { directories.append(directory) }
        }
        for directory in directories {
            guard stat(directory, &info) == 0, info.st_mode & 0o002 != 0 else { continue }
            guard info.st_mode & S_ISVTX != 0 else { throw .writableDirectory(directory, mode: info.st_mode) }
            if warned.insert(directory).inserted {
                logger.warning("plugin directory \(directory) is writable by others (mode \(PluginRefusal.octal(info.st_mode))); its sticky bit keeps others from replacing files, but keep plugins in a directory only their owner can write")
            }
        }
    }

    /// `path` with every symbolic link, `.` and `..` resolved, or nil when it cannot be.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `dir/name.so` -> `dir`, `/name.so` -> `/`, `name.so` -> `.`.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
