#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// The files `pushhost check` reads and writes: a report (`-`: standard
/// input), the expected lines, a JUnit file.
package enum CheckFiles {
    /// The text of the file at `path`, or of standard input for `-`.
    package static func text(_ path: String) throws(SetupError) -> String {
        guard let bytes = path == "-" ? FileContents.read(fd: 0) : FileContents.read(path) else {
            throw SetupError("\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The expected lines in the file at `path`; a setup error naming the
    /// first line that is no JSON object, and why.
    package static func expected(_ path: String) throws(SetupError) -> [NumberedLine] {
        let lines = NumberedLine.lines(of: try text(path), comments: true)
        for line in lines {
            if case .failure(let error) = line.value { throw SetupError("\(path) line \(line.number): \(error.reason)") }
        }
        return lines
    }

    /// Replaces the file at `path` with `text` (whole, or not at all).
    package static func write(_ text: String, to path: String) throws(SetupError) {
        try AtomicFile.write(Array(text.utf8), to: path)
    }
}
