#if canImport(Glibc)
import Glibc
#endif

/// `rename` that never replaces what is at the destination: it fails with
/// `EEXIST` instead.
///
/// It is `renameat2(..., RENAME_NOREPLACE)`, which Glibc has (since 2.28)
/// but does not declare to Swift, so it is looked up once by name. Where the
/// C library or the file system lacks it, a file is linked to its new name,
/// then unlinked from the old one (`link` never replaces either; a
/// directory cannot move that way and fails with `EPERM`).
package enum NoReplaceRename {
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// `RENAME_NOREPLACE` from `<linux/fs.h>`.
    private static let noReplace: UInt32 = 1

    private static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }

    /// Moves `source` to `destination`: 0, or -1 with `errno` set (`EEXIST`
    /// when `destination` exists).
    package static func move(_ source: [CChar], to destination: [CChar]) -> Int32 {
        if let renameat2 {
            let result = renameat2(AT_FDCWD, source, AT_FDCWD, destination, noReplace)
            if result == 0 || (errno != EINVAL && errno != ENOSYS) { return result }
        }
        guard link(source, destination) == 0 else { return -1 }
        return unlink(source)
    }
}
