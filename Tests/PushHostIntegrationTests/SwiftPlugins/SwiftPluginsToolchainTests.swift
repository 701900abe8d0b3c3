import Foundation
import Testing

/// A Swift plugin built by another toolchain than the host's is refused
/// before it is opened, with both toolchains named: Swift's ABI is not
/// stable across toolchains on Linux, and a plugin runs on the host's one
/// runtime. The other toolchain is made here: a sample's `.comment`, where
/// swiftc names its compiler, rewritten with `objcopy`.
@Suite struct SwiftPluginsToolchainTests {
    static let otherCompiler = "clang version 20.1.0 (https://github.com/swiftlang/llvm-project.git 0123456789abcdef0123456789abcdef01234567)"

    /// A copy of the `orders` sample as another toolchain would have built it
    /// (`strip`: no debug information, so it says only its compiler).
    static func fromAnotherToolchain(_ scratch: Scratch) throws -> String {
        try scratch.write("comment", otherCompiler + "\0")
        let copy = scratch.file("liborders.so")
        let objcopy = try Command.run("objcopy", [
            "--strip-debug", "--remove-section=.comment", "--add-section", ".comment=\(scratch.file("comment"))",
            Paths.sample("orders"), copy,
        ])
        try #require(objcopy.status == 0, "\(objcopy.stderr)")
        return copy
    }

    @Test func aSwiftPluginOfAnotherToolchainIsRefusedNamingBoth() throws {
        let scratch = try Scratch()
        let other = try Self.fromAnotherToolchain(scratch)
        let run = try Command.pushhost(["run", "--plugin", other, "--state", scratch.file("state")], stdin: "")
        #expect(run.status == 1)
        let refusal = try #require(run.stderr.split(separator: "\n").first { $0.contains("refused plugin \(other)") }, "\(run.stderr)")
        #expect(refusal.contains("built by another Swift toolchain than this pushhost (\(Self.otherCompiler); pushhost: "), "\(refusal)")
        // The host's own: its Swift version where its debug information says it, else its compiler.
        #expect(refusal.contains("pushhost: Swift version ") || refusal.contains("pushhost: clang version "), "\(refusal)")
        #expect(refusal.hasSuffix("): build it with the toolchain that built pushhost"), "\(refusal)")

        // In a worker behind its walls too, where the host's executable is out of reach.
        for isolation in [[], ["--isolate", "all"]] {
            let listing = try Command.pushhost(["plugins", "--plugin", other] + isolation)
            #expect(listing.status == 1)
            #expect(listing.stdout.contains("refused \(other): built by another Swift toolchain"), "\(isolation): \(listing.stdout)")
        }
    }

    /// The same sample as built, and a C plugin (no swiftc line), load.
    @Test func theHostsOwnToolchainAndCPluginsLoad() throws {
        let listing = try Command.pushhost(["plugins", "--plugin", Paths.sample("orders"), "--plugin", Paths.sample("cache")])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        #expect(!listing.stdout.contains("refused"), "\(listing.stdout)")
    }
}
