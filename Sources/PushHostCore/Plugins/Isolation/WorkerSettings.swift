#if canImport(Glibc)
import Glibc
#endif

/// A plugin's settings on their way to its worker: on its standard input, a
/// sealed memory file of `KEY NUL VALUE NUL` pairs, not on its command
/// line, which every user of the machine can read (`ps`, `/proc/PID/cmdline`).
enum WorkerSettings {
    /// The most bytes the worker reads.
    static let limit = 16 << 20

    /// [host] A memory file holding `settings`, read from its start; nil when none can be made.
    static func file(_ settings: [String: String]) -> Int32? {
        guard let fd = MemoryFile.make(name: "pushhost-settings") else { return nil }
        var bytes: [UInt8] = []
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            bytes += Array(key.utf8) + [0] + Array(value.utf8) + [0]
        }
        guard FileContents.write(bytes, to: fd), lseek(fd, 0, SEEK_SET) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// [worker] The settings on standard input, which then becomes /dev/null.
    package static func read() -> [String: String] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        let null = open("/dev/null", O_RDONLY)
        if null > 0 {
            dup2(null, 0)
            close(null)
        }
        var settings: [String: String] = [:]
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
        for pair in stride(from: 0, to: fields.count - 1, by: 2) {
            settings[String(decoding: fields[pair], as: UTF8.self)] = String(decoding: fields[pair + 1], as: UTF8.self)
        }
        return settings
    }
}
