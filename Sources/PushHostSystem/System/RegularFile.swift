#if canImport(Glibc)
import Glibc
#endif

/// Small files that must be regular files (settings, the token): opened
/// without blocking (a FIFO planted in their place cannot hang the host) and
/// checked with `fstat` on the open descriptor, so what is checked is what
/// is read.
package enum RegularFile {
    /// How a symbolic link in the last component of the path is treated.
    package enum Links {
        /// Opened through, like any program would (the settings beside a plugin).
        case follow
        /// Refused (`O_NOFOLLOW`): state files, which nobody else should be able to redirect.
        case refuse
    }

    /// The bytes of the file at `path`; nil when nothing is there (not even a
    /// dangling symbolic link); throws when something is there that cannot be
    /// read as a regular file.
    package static func read(_ path: String, links: Links) throws(FileProblem) -> [UInt8]? {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (links == .refuse ? O_NOFOLLOW : 0)
        let fd = open(path, flags)
        guard fd >= 0 else {
            let code = errno
            var info = stat()
            if code == ENOENT {
                // A symbolic link to nothing was meant to be read: say so rather than ignore it.
                guard lstat(path, &info) == 0 else { return nil }
                throw FileProblem("a symbolic link to a file that does not exist")
            }
            throw FileProblem(opening: path, errno: code, noFollow: links == .refuse)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileProblem(errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FileProblem(kind: info.st_mode) }
        guard let bytes = FileContents.read(fd: fd) else { throw FileProblem(errno: errno) }
        return bytes
    }
}
