#if canImport(Glibc)
import Glibc
#endif

/// Why a file the host was pointed at cannot be used, in the words a user
/// reads after the path: `a directory`, `a FIFO`, `a symbolic link, which
/// pushhost does not follow`, or the system's own text (`Permission denied`).
package struct FileProblem: Error, CustomStringConvertible {
    package let description: String

    /// A reason in words.
    init(_ description: String) {
        self.description = description
    }

    /// The system's text for `code` (an `errno` value).
    package init(errno code: Int32) {
        description = String(cString: strerror(code))
    }

    /// What a file of type `mode` (`st_mode`) is, said of a file that had to be another type.
    package init(kind mode: mode_t) {
        description = switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link, which pushhost does not follow"
        case S_IFREG: "a regular file"
        default: "not a regular file"
        }
    }

    /// Why opening `path` failed with `code`: what the path is when that is
    /// the reason (a symbolic link refused by `O_NOFOLLOW`, a FIFO without a
    /// reader refused by `O_NONBLOCK`, a directory opened for writing);
    /// otherwise the system's text.
    package init(opening path: String, errno code: Int32, noFollow: Bool) {
        var info = stat()
        if (code == ELOOP && noFollow) || code == ENXIO || code == EISDIR, lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            self.init(kind: info.st_mode)
        } else {
            self.init(errno: code)
        }
    }
}
