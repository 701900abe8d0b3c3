#if canImport(Glibc)
import Glibc
#endif

/// Which Swift toolchain built a library, as the library itself says: the
/// compiler's `.comment` line (`clang version 21.0.0
/// (https://github.com/swiftlang/llvm-project.git HASH)`, which swiftc
/// writes into everything it compiles, and which names the toolchain's
/// build exactly), and, when the file keeps its debug information, its
/// `Swift version 6.3.1 (swift-6.3.1-RELEASE)`.
///
/// Swift's ABI on Linux is not stable across toolchains, and a plugin runs
/// on the host's one runtime: a Swift plugin whose compiler is not the
/// host's is refused before it is opened (its initializers would already
/// run on the wrong runtime). A C plugin has no such line and is never
/// compared; nor is a Swift library whose `.comment` was stripped.
package struct SwiftToolchain: Equatable, Sendable {
    /// The swiftlang LLVM line of `.comment`.
    let compiler: String
    /// The file it was read from.
    let path: String

    /// What built the file at `path`; nil when it was not swiftc (or it does not say).
    init?(file path: String) {
        guard let comment = ELFSection.read(".comment", of: path, limit: 1 << 16),
              let line = Self.strings(comment).first(where: { $0.contains("swiftlang/llvm-project") }) else { return nil }
        compiler = Self.shown(line)
        self.path = path
    }

    /// What built this process's own executable.
    package static let host = SwiftToolchain(file: "/proc/self/exe")

    /// Why this plugin cannot run on the runtime of `host` (nil when the
    /// host's executable does not say), or nil when it can.
    func mismatch(_ host: SwiftToolchain?) -> String? {
        guard let host, compiler != host.compiler else { return nil }
        return "built by another Swift toolchain than this pushhost (\(name); pushhost: \(host.name)): build it with the toolchain that built pushhost"
    }

    /// `Swift version 6.3.1 (...)` from the debug information, else the compiler's line.
    private var name: String {
        ELFSection.read(".debug_str", of: path, limit: 64 << 20)
            .flatMap { Self.strings($0).first { $0.hasPrefix("Swift version ") } }.map(Self.shown) ?? compiler
    }

    /// At most 200 characters of a line the file says (the file may be anybody's).
    private static func shown(_ line: String) -> String {
        line.count <= 200 ? line : String(line.prefix(200)) + "…"
    }

    /// The NUL-separated strings of a section.
    private static func strings(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// One section of a 64-bit little-endian ELF file, read by name. The file
/// may lie: nothing it says is read beyond its end, and no section larger
/// than asked for is read at all.
enum ELFSection {
    /// The bytes of section `name` of the file at `path`; nil when the file
    /// is no such ELF file, has no such section, or it is larger than `limit`.
    static func read(_ name: String, of path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let fileSize = Int(info.st_size)
        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else { return nil }
            return Self.bytes(fd, at: offset, count: count)
        }
        guard let header = bytes(at: 0, count: 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46, 2, 1]) else { return nil }
        let tableOffset = integer(header, 0x28, 8)
        let entrySize = integer(header, 0x3A, 2)
        let count = integer(header, 0x3C, 2)
        let namesIndex = integer(header, 0x3E, 2)
        // An ELF64 section header is 64 bytes.
        guard entrySize == 64, count > 0, namesIndex < count,
              let table = bytes(at: tableOffset, count: entrySize * count) else { return nil }
        func entry(_ index: Int) -> (name: Int, offset: Int, size: Int) {
            let base = index * entrySize
            return (integer(table, base, 4), integer(table, base + 0x18, 8), integer(table, base + 0x20, 8))
        }
        let names = entry(namesIndex)
        guard names.size < 1 << 20, let text = bytes(at: names.offset, count: names.size) else { return nil }
        let wanted = Array(name.utf8)
        for index in 0 ..< count {
            let section = entry(index)
            guard section.name >= 0, section.name < text.count, text[section.name...].prefix(while: { $0 != 0 }).elementsEqual(wanted) else { continue }
            return section.size <= limit ? bytes(at: section.offset, count: section.size) : nil
        }
        return nil
    }

    private static func bytes(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return done == count ? bytes : nil
    }

    /// The little-endian integer of `width` bytes at `at`, or -1 past the end.
    private static func integer(_ bytes: [UInt8], _ at: Int, _ width: Int) -> Int {
        guard at >= 0, at + width <= bytes.count else { return -1 }
        var value = 0
        for index in (0 ..< width).reversed() { value = value << 8 | Int(bytes[at + index]) }
        return value
    }
}
