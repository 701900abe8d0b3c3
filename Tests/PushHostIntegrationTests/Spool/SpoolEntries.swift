import Foundation
import Testing

/// What the spool tests of entries that are not plain files, and of names
/// that are not UTF-8, need beyond `SpoolFolder`: entries made and listed by
/// their bytes, with plain system calls.
extension SpoolFolder {
    /// The NUL-terminated path of the entry named `name` (bytes) in `folder`.
    func path(_ folder: String, _ name: [UInt8]) -> [CChar] {
        (Array(self.folder(folder).utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
    }

    /// The names in `folder` as the file system holds them, sorted by their bytes.
    func rawNames(_ folder: String) -> [[UInt8]] {
        guard let stream = opendir(self.folder(folder)) else { return [] }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Writes `contents` into `tmp/NAME` and renames it into `new/NAME`, `name` given as bytes.
    func drop(bytes name: [UInt8], _ contents: String) throws {
        let temporary = path("tmp", name)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, path("new", name)) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// The bytes of `FOLDER/NAME`, `name` given as bytes.
    func contents(_ folder: String, bytes name: [UInt8]) -> Data? {
        let fd = open(path(folder, name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return count == 0 ? data : nil }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// Makes a FIFO in `tmp/` and renames it into `new/NAME`.
    func dropFIFO(_ name: String) throws {
        let temporary = folder("tmp") + "/" + name
        guard mkfifo(temporary, 0o600) == 0, rename(temporary, folder("new") + "/" + name) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Whether the entry `folder/NAME` is a regular file.
    func isFile(_ folder: String, _ name: String) -> Bool {
        var info = stat()
        return lstat(self.folder(folder) + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// The report line of a spool file `name` in `report`, and its `source.line`.
extension Array where Element == [String: Any] {
    func lines(of name: String) -> [[String: Any]] { filter { $0.sourceFile == name } }
}

extension Dictionary where Key == String, Value == Any {
    /// The `line` of a report line's spool `source`.
    var sourceLine: Int? { (self["source"] as? [String: Any])?["line"] as? Int }
}
