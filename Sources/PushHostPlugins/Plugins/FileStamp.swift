#if canImport(Glibc)
import Glibc
#endif

/// Which version of a file is at a path: its device, inode, size and
/// modification time. A new version installed (written anew, or moved into
/// place) has another stamp; one rewritten within the same nanosecond at
/// the same size would not, which no install does.
package struct FileStamp: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int64

    /// The stamp of the file at `path` (links followed); nil when there is none.
    package init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
