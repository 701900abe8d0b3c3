#if canImport(Glibc)
import Glibc
#endif
import PushHostPlugin

/// The id of the last message the host finished, kept in the state folder
/// (file `cursor`: three lines, `url URL`, `topic TOPIC`, `id ID`) so that
/// a restarted host resumes there. Written whole to `cursor.tmp` and
/// renamed over `cursor`, so a crash leaves the old or the new one.
/// Used only by `run`'s task.
struct Cursor {
    /// The file, or nil when there is no state folder (the id is then kept in memory only).
    let path: String?
    let url: String
    let topic: String
    private(set) var id: String?
    /// The last reason a write failed, logged once until a write succeeds.
    private var failure: String?

    init(folder: String?, url: String, topic: String) {
        path = folder.map { $0 + "/cursor" }
        self.url = url
        self.topic = topic
    }

    /// Reads the stored id; what it finds that is not for this url and
    /// topic, or not an id, it leaves unused and says why.
    mutating func load(log: (String, PluginContext.LogLevel) -> Void) {
        guard let path else { return }
        guard let text = Self.readText(path, limit: 4096) else { return }
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let stored = fields["id"], Settings.isMessageID(stored.utf8) else {
            log("\(path) holds no id to resume from; starting with new messages", .warning)
            return
        }
        guard fields["url"] == Substring(url), fields["topic"] == Substring(topic) else {
            log("the id in \(path) was kept for another server or topic; starting with new messages", .info)
            return
        }
        id = String(stored)
    }

    /// Keeps `newID` (checked by the caller), in memory and in the file.
    mutating func store(_ newID: String, log: (String, PluginContext.LogLevel) -> Void) {
        id = newID
        guard let path else { return }
        let text = "url \(url)\ntopic \(topic)\nid \(newID)\n"
        if let reason = Self.writeAtomically(text, to: path) {
            if failure != reason { log("could not keep the id to resume from in \(path): \(reason)", .warning) }
            failure = reason
        } else {
            failure = nil
        }
    }

    /// The file's text, or nil when it is missing, unreadable, longer than `limit` or not UTF-8.
    private static func readText(_ path: String, limit: Int) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, limit + 1 - count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        guard count <= limit else { return nil }
        return String(validating: bytes[..<count], as: UTF8.self)
    }

    /// Writes `text` to `PATH.tmp`, flushes it to disk and renames it over
    /// `path`; the reason it failed, or nil.
    private static func writeAtomically(_ text: String, to path: String) -> String? {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "open \(temporary): \(reason())" }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let wrote = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else {
                let why = "write \(temporary): \(reason())"
                close(fd)
                unlink(temporary)
                return why
            }
            written += wrote
        }
        if fsync(fd) != 0 {
            let why = "fsync \(temporary): \(reason())"
            close(fd)
            unlink(temporary)
            return why
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let why = "rename \(temporary): \(reason())"
            unlink(temporary)
            return why
        }
        return nil
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}
