#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole file so that a crash leaves either the old or the new
/// contents: a temporary file beside it, `fsync`, `rename`, `fsync` of the
/// directory.
///
/// The file is private: the temporary file is created with mode 0600 (the
/// umask may only take bits away), `O_EXCL | O_NOFOLLOW`, so nothing planted
/// under its name, a symbolic link least of all, is ever written through.
package enum AtomicFile {
    /// Replaces the file at `path` with `bytes`.
    package static func write(_ bytes: [UInt8], to path: String) throws(SetupError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let name = String(path.split(separator: "/").last ?? "")
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).\(getpid()).tmp"
        func failure(_ what: String) -> SetupError {
            SetupError("\(path): \(what): \(String(cString: strerror(errno)))")
        }
        // A temporary file left by a crashed run of the same pid goes first;
        // unlink removes a symbolic link itself, never its target.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        guard FileContents.write(bytes, to: fd), fsync(fd) == 0 else {
            let error = failure("cannot write \(temporary)")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename \(temporary)")
            unlink(temporary)
            throw error
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
