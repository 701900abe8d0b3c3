#if canImport(Glibc)
import Glibc
#endif
import PushHostRecords
import PushHostSystem

/// A spool directory in the maildir layout: producers write a file into
/// `tmp/` and rename it into `new/`; the host moves each file it has handled
/// into `cur/` (every record handled) or `failed/` (with `NAME.error.json`
/// beside it saying why).
///
/// Names are bytes (see `SpoolName`); entries are opened without following
/// symbolic links (`Spool+open.swift`) and moved without replacing anything
/// (`Spool+finish.swift`).
package struct Spool: Sendable {
    package let directory: String

    var tmp: String { directory + "/tmp" }
    var new: String { directory + "/new" }
    var cur: String { directory + "/cur" }
    var failed: String { directory + "/failed" }

    /// Opens the spool at `directory`, creating it and its four folders when missing.
    package init(directory: String) throws(SetupError) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try createLayout()
    }

    /// Creates the spool directory and its four folders where they are
    /// missing, readable by the owner only (0700); folders already there
    /// are left as they are.
    func createLayout() throws(SetupError) {
        for path in [directory, tmp, new, cur, failed] {
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw SetupError("spool \(directory): cannot create \(path): \(String(cString: strerror(errno)))")
            }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw SetupError("spool \(directory): \(path) is not a directory")
            }
        }
    }

    /// The NUL-terminated path of `name` in `folder`, for system calls.
    func path(_ folder: String, _ name: SpoolName) -> [CChar] {
        (Array(folder.utf8) + [UInt8(ascii: "/")] + name.bytes + [0]).map { CChar(bitPattern: $0) }
    }

    /// The entries now in `new/` that the host takes (whatever their type:
    /// one that is not a regular file is refused when its turn comes),
    /// oldest first, then by name.
    func scan() -> [SpoolName] {
        guard let stream = opendir(new) else { return [] }
        defer { closedir(stream) }
        var found: [(name: SpoolName, seconds: Int, nanoseconds: Int)] = []
        while let entry = readdir(stream) {
            let name = SpoolName(withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) })
            guard name.isTaken else { continue }
            var info = stat()
            guard lstat(path(new, name), &info) == 0 else { continue }
            found.append((name, info.st_mtim.tv_sec, info.st_mtim.tv_nsec))
        }
        found.sort { ($0.seconds, $0.nanoseconds) != ($1.seconds, $1.nanoseconds)
            ? ($0.seconds, $0.nanoseconds) < ($1.seconds, $1.nanoseconds)
            : $0.name.bytes.lexicographicallyPrecedes($1.name.bytes) }
        return found.map(\.name)
    }

    /// Whether `new/NAME` is there and is not a regular file (a regular file
    /// is taken once closed after writing; anything else when created).
    func holdsOtherThanAFile(_ name: SpoolName) -> Bool {
        var info = stat()
        return lstat(path(new, name), &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    }

    /// Makes the moves out of `new/` durable: fsyncs `new/`, `cur/` and `failed/`.
    func syncFolders() throws(SpoolError) {
        for folder in [new, cur, failed] {
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw SpoolError("cannot open \(folder) to fsync it: \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw SpoolError("cannot fsync \(folder): \(String(cString: strerror(errno)))") }
        }
    }
}

/// One bad record of a spool file, as `NAME.error.json` lists it.
struct SpoolProblem {
    /// The line the record starts on (for a document that is not valid
    /// JSON, the line of the mistake); nil when the file itself is at
    /// fault (not a regular file, unreadable, empty).
    let line: Int?
    /// `rejected`, or `retry` for a failed message or event.
    let result: RecordResult
    let reason: String
}

/// A spool file that could not be read or moved.
struct SpoolError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
