#if canImport(Glibc)
import Glibc
#endif

/// Removes a folder with everything beneath it (`EphemeralState`).
///
/// Each folder is opened with `O_NOFOLLOW` and emptied through its
/// descriptor, so a symbolic link beneath it, even one a plugin swapped in
/// for a folder meanwhile, is removed itself and never followed.
enum FolderTree {
    /// Removes `path` and everything in it; nil, or the first problem met.
    /// A worker still writing as the host exits may fill a folder again
    /// while it is emptied: that folder is emptied again, twice at most.
    static func remove(_ path: String) -> String? {
        var problem: String?
        for _ in 0..<3 {
            problem = removeOnce(path)
            if problem == nil { break }
        }
        return problem
    }

    private static func removeOnce(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? nil : "\(path): \(reason())" }
        let problem = empty(fd, path)
        close(fd)
        guard rmdir(path) == 0 || errno == ENOENT else { return problem ?? "\(path): \(reason())" }
        return nil
    }

    /// Removes everything in the folder open as `fd`, named `path` in problems.
    private static func empty(_ fd: Int32, _ path: String) -> String? {
        // A folder a plugin made read-only still gives up its entries.
        fchmod(fd, 0o700)
        var problem: String?
        for name in names(in: fd) {
            let shown = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if unlinkat(fd, name, 0) == 0 || errno == ENOENT { continue }
            guard errno == EISDIR else {
                problem = problem ?? "\(shown): \(reason())"
                continue
            }
            let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else {
                problem = problem ?? "\(shown): \(reason())"
                continue
            }
            let inner = empty(child, shown)
            close(child)
            if unlinkat(fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT {
                problem = problem ?? inner ?? "\(shown): \(reason())"
            }
        }
        return problem
    }

    /// The names in the folder open as `fd`, `.` and `..` left out, each
    /// NUL-terminated (a name need not be UTF-8).
    private static func names(in fd: Int32) -> [[CChar]] {
        // fdopendir takes the descriptor over, and closedir closes it.
        let listing = dup(fd)
        guard listing >= 0 else { return [] }
        guard let stream = fdopendir(listing) else {
            close(listing)
            return []
        }
        defer { closedir(stream) }
        var names: [[CChar]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                Array(bytes.prefix { $0 != 0 }).map { CChar(bitPattern: $0) }
            }
            if name == [46] || name == [46, 46] { continue }
            names.append(name + [0])
        }
        return names
    }

    /// The system's text for `errno`.
    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}
