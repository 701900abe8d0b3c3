#if canImport(Glibc)
import Glibc
#endif

/// Whole small files (settings, the token, spool files), read and written
/// without Foundation.
package enum FileContents {
    /// Writes all of `bytes` to `fd`, going on after partial writes and
    /// interruptions; false when a write fails.
    @discardableResult
    package static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { write($0, to: fd) }
    }

    /// Writes all of `buffer` to `fd`, going on after a signal or a short write.
    package static func write(_ buffer: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// The bytes of the file at `path`, or nil when it cannot be opened.
    package static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd: fd)
    }

    /// Everything left to read from `fd`, or nil on a read error.
    package static func read(fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
