#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// A plugin's settings on their way to its worker: on its standard input, a
/// memory file of key and value pairs, each a 32-bit little-endian length
/// and its bytes (a value may hold any byte), not on its command line, which every user of the machine can read (`ps`, `/proc/PID/cmdline`).
enum WorkerSettings {
    /// The most bytes the worker reads.
    static let limit = 16 << 20

    /// [host] A memory file holding `settings`, read from its start; nil when none can be made.
    static func file(_ settings: [String: String]) -> Int32? {
        guard let fd = MemoryFile.make(name: "pushhost-settings") else { return nil }
        var bytes: [UInt8] = []
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            for text in [key, value] {
                let count = UInt32(text.utf8.count)
                bytes += (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } + Array(text.utf8)
            }
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
        var at = 0
        /// The next field, or nil at the end (or where the bytes stop short).
        func field() -> String? {
            guard bytes.count - at >= 4 else { return nil }
            let count = (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            guard bytes.count - at - 4 >= count else { return nil }
            defer { at += 4 + count }
            return String(decoding: bytes[(at + 4)..<(at + 4 + count)], as: UTF8.self)
        }
        while let key = field(), let value = field() { settings[key] = value }
        return settings
    }
}
