import Foundation
import Testing

@testable import PushHostPlugins
@testable import PushHostSystem

/// Reading which toolchain built a plugin file, before it is opened: the
/// file is anybody's, so what it says of its own layout is not believed.
@Suite struct SwiftToolchainTests {
    static let compiler = "clang version 21.0.0 (https://github.com/swiftlang/llvm-project.git 0123456789abcdef)"

    /// A minimal ELF64 file: sections null, .shstrtab and .comment.
    static func elf(comment: [UInt8], lie: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        let names = Array("\0.shstrtab\0.comment\0".utf8)
        var file = [UInt8](repeating: 0, count: 64)
        file.replaceSubrange(0..<6, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1])
        let namesOffset = file.count
        file += names
        let commentOffset = file.count
        file += comment
        let tableOffset = file.count
        func put(_ value: Int, at: Int, width: Int, in bytes: inout [UInt8]) {
            for index in 0..<width { bytes[at + index] = UInt8((value >> (8 * index)) & 0xFF) }
        }
        put(tableOffset, at: 0x28, width: 8, in: &file)
        put(64, at: 0x3A, width: 2, in: &file)
        put(3, at: 0x3C, width: 2, in: &file)
        put(1, at: 0x3E, width: 2, in: &file)
        for (name, offset, size) in [(0, 0, 0), (1, namesOffset, names.count), (11, commentOffset, comment.count)] {
            var entry = [UInt8](repeating: 0, count: 64)
            put(name, at: 0, width: 4, in: &entry)
            put(offset, at: 0x18, width: 8, in: &entry)
            put(size, at: 0x20, width: 8, in: &entry)
            file += entry
        }
        lie(&file)
        return file
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "/toolchain-\(UUID().uuidString).so"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theCompilerLineIsReadFromComment() throws {
        let path = try Self.write(Self.elf(comment: Array("GCC: (Debian) 12\0\(Self.compiler)\0".utf8)))
        defer { unlink(path) }
        #expect(SwiftToolchain(file: path)?.compiler == Self.compiler)
        // A C library's .comment has no swiftlang line: not compared.
        let c = try Self.write(Self.elf(comment: Array("GCC: (Debian) 12\0".utf8)))
        defer { unlink(c) }
        #expect(SwiftToolchain(file: c) == nil)
    }

    /// Section tables and sections past the file's end, a header that is not
    /// 64 bytes, a names index past the table, a name past the names: nothing
    /// is read (and nothing the size the file claims is allocated).
    @Test(arguments: [
        (0x28, 8, 1 << 40),  // the section table far past the end
        (0x3A, 2, 0xFFFF),  // section headers of 65535 bytes
        (0x3C, 2, 0xFFFF),  // 65535 sections
        (0x3E, 2, 7),  // the names section past the table
    ])
    func aHeaderThatLiesReadsNothing(at: Int, width: Int, value: Int) throws {
        let path = try Self.write(Self.elf(comment: Array("\(Self.compiler)\0".utf8)) { file in
            for index in 0..<width { file[at + index] = UInt8((value >> (8 * index)) & 0xFF) }
        })
        defer { unlink(path) }
        #expect(SwiftToolchain(file: path) == nil)
    }

    @Test func aSectionThatClaimsMoreThanTheFileHoldsIsNotRead() throws {
        let bytes = Self.elf(comment: Array("\(Self.compiler)\0".utf8)) { file in
            // The .comment entry (the last 64 bytes) claims 1 TiB.
            let size = file.count - 64 + 0x20
            for index in 0..<8 { file[size + index] = UInt8(((1 << 40) >> (8 * index)) & 0xFF) }
        }
        let path = try Self.write(bytes)
        defer { unlink(path) }
        #expect(SwiftToolchain(file: path) == nil)
        let notELF = try Self.write(Array("not an ELF file at all".utf8))
        defer { unlink(notELF) }
        #expect(SwiftToolchain(file: notELF) == nil)
    }

    /// The line goes into a refusal: at most 200 characters of it.
    @Test func aLongLineIsShortenedInTheRefusal() throws {
        let long = Self.compiler + String(repeating: "x", count: 10_000)
        let path = try Self.write(Self.elf(comment: Array("\(long)\0".utf8)))
        defer { unlink(path) }
        let plugin = try #require(SwiftToolchain(file: path))
        #expect(plugin.compiler.count == 201)
        let host = try #require(SwiftToolchain(file: try Self.write(Self.elf(comment: Array("\(Self.compiler)\0".utf8)))))
        let why = try #require(plugin.mismatch(host))
        #expect(why.count < 600, "\(why)")
        #expect(plugin.mismatch(plugin) == nil)
    }
}
