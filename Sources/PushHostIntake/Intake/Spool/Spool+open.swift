#if canImport(Glibc)
import Glibc
#endif

extension Spool {
    /// What opening an entry of `new/` found.
    enum Opening {
        /// Nothing there any more: handled already, or removed by someone else.
        case gone
        /// An entry that is not read: why, in one clause.
        case refused(String)
        /// A regular file, open for reading, the user who owns it, and when
        /// it was last written (Unix milliseconds): its arrival. The caller closes `fd`.
        case file(fd: Int32, size: Int, owner: uid_t, written: Int64)
    }

    /// Opens `new/NAME` for reading, never following a symbolic link and
    /// never blocking: a FIFO, a socket, a device, a directory or a
    /// symbolic link is refused, whether `lstat` sees it first or the open
    /// descriptor does (the entry may have been swapped in between).
    func openEntry(_ name: SpoolName) -> Opening {
        let path = path(new, name)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return errno == ENOENT ? .gone : .refused("cannot read it: \(String(cString: strerror(errno)))")
        }
        if let kind = Self.kind(of: info.st_mode) { return .refused("not a regular file: \(kind)") }
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .gone
            case ELOOP: return .refused("not a regular file: a symbolic link (not followed)")
            default: return .refused("cannot open it: \(String(cString: strerror(errno)))")
            }
        }
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .refused("cannot read it: \(reason)")
        }
        if let kind = Self.kind(of: info.st_mode) {
            close(fd)
            return .refused("not a regular file: \(kind)")
        }
        let written = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec / 1_000_000)
        return .file(fd: fd, size: Int(info.st_size), owner: info.st_uid, written: written)
    }

    /// What an entry of type `mode` is, in words, or nil for a regular file.
    private static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "a symbolic link (not followed)"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "an entry of unknown type"
        }
    }
}
