#if canImport(Glibc)
import Glibc
#endif

/// A spool directory in the maildir layout: producers write a file into
/// `tmp/` and rename it into `new/`; the host moves each file it has handled
/// into `cur/` (every record handled) or `failed/` (with `NAME.error.json`
/// beside it saying why).
package struct Spool: Sendable {
    package let directory: String

    var tmp: String { directory + "/tmp" }
    var new: String { directory + "/new" }
    var cur: String { directory + "/cur" }
    var failed: String { directory + "/failed" }

    /// Opens the spool at `directory`, creating it and its four folders when missing.
    package init(directory: String) throws(SetupError) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        for folder in ["", "/tmp", "/new", "/cur", "/failed"] {
            let path = self.directory + folder
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw SetupError("spool \(directory): cannot create \(path): \(String(cString: strerror(errno)))")
            }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw SetupError("spool \(directory): \(path) is not a directory")
            }
        }
    }

    /// Whether `name` is one the host takes: not hidden (producers' temporary names start with a dot).
    static func takes(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".")
    }

    /// The files now in `new/`, oldest first, then by name.
    func scan() -> [String] {
        guard let stream = opendir(new) else { return [] }
        defer { closedir(stream) }
        var found: [(name: String, seconds: Int, nanoseconds: Int)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard Self.takes(name) else { continue }
            var info = stat()
            guard stat(new + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            found.append((name, info.st_mtim.tv_sec, info.st_mtim.tv_nsec))
        }
        found.sort { ($0.seconds, $0.nanoseconds) != ($1.seconds, $1.nanoseconds)
            ? ($0.seconds, $0.nanoseconds) < ($1.seconds, $1.nanoseconds)
            : Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        return found.map(\.name)
    }

    /// What `new/NAME` holds: its bytes, nil when it is gone (already
    /// handled), or why it cannot be read.
    func contents(of name: String) -> Result<[UInt8], SpoolError>? {
        let path = new + "/" + name
        guard let bytes = FileContents.read(path) else {
            return errno == ENOENT ? nil : .failure(SpoolError("cannot read \(path): \(String(cString: strerror(errno)))"))
        }
        return .success(bytes)
    }

    /// Moves `new/NAME` into `cur/`, or into `failed/` with `NAME.error.json`
    /// listing `problems`, once every record of it has its outcome.
    func finish(_ name: String, problems: [SpoolProblem]) throws(SpoolError) {
        var destination = cur
        if !problems.isEmpty {
            destination = failed
            var line = JSONLine()
            line.string("file", name)
            line.key("records")
            line.bytes.append(UInt8(ascii: "["))
            for (index, problem) in problems.enumerated() {
                if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
                line.object { item in
                    if let record = problem.record { item.number("record", record) }
                    item.string("status", problem.result == .rejected ? "rejected" : "failed")
                    item.string("error", problem.reason)
                }
            }
            line.bytes.append(UInt8(ascii: "]"))
            let report = line.finished()
            let path = failed + "/" + name + ".error.json"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SpoolError("cannot write \(path): \(String(cString: strerror(errno)))") }
            FileContents.write(report, to: fd)
            close(fd)
        }
        guard rename(new + "/" + name, destination + "/" + name) == 0 else {
            throw SpoolError("cannot move \(new)/\(name) to \(destination)/: \(String(cString: strerror(errno)))")
        }
    }
}

/// One bad record of a spool file, as `NAME.error.json` lists it.
struct SpoolProblem {
    /// The record's index in the file (1 for a file of one); nil when the
    /// file itself is at fault (unreadable, empty).
    let record: Int?
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
