import Foundation
import Testing

/// include/pushhost.h is plain C11 and C++, warning-free, and its worked
/// example builds.
@Suite struct HeaderTests {
    @Test(arguments: [
        ["cc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", "c"],
        ["clang", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", "c"],
        ["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-x", "c++"],
        ["clang++", "-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", "c++"],
    ])
    func compiles(_ command: [String]) throws {
        let result = try Command.run(command[0], Array(command.dropFirst()) + ["-fsyntax-only", Paths.include.appendingPathComponent("pushhost.h").path])
        #expect(result.status == 0, "\(command.joined(separator: " ")):\n\(result.stderr)")
        #expect(result.stderr.isEmpty)
    }

    @Test func includesOnlyStandardHeaders() throws {
        let header = try String(contentsOf: Paths.include.appendingPathComponent("pushhost.h"), encoding: .utf8)
        let includes = header.split(separator: "\n").filter { $0.hasPrefix("#include") }
        #expect(includes == ["#include <stddef.h>", "#include <stdint.h>"])
    }

    /// The example in the header's opening comment, cut out and built as is.
    @Test func workedExampleBuildsAndLoads() throws {
        let header = try String(contentsOf: Paths.include.appendingPathComponent("pushhost.h"), encoding: .utf8)
        let lines = header.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: " *   #include <pushhost.h>"))
        let end = try #require(lines[start...].firstIndex { $0.contains("ph_plugin_entry(void) {") })
        let source = lines[start...end].map { $0.dropFirst(min(5, $0.count)) }.joined(separator: "\n")
        let scratch = try Scratch()
        let plugin = try scratch.plugin("hello.so", source)
        let listing = try Command.pushhost(["plugins", "--plugin", plugin])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains("hello 1.0.0"))
    }
}

/// The README's third-party plugin, cut out and built with its own `cc` line.
@Suite struct ReadmePluginTests {
    @Test func readmePluginBuildsWithOneLineAndLists() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```")
        let source = try #require(blocks.first { $0.hasPrefix("c\n/* hello.c */") }).dropFirst(2)
        let command = try #require(blocks.first { $0.contains("cc -std=c11") && $0.contains("hello.so") })
        let ccLine = try #require(command.split(separator: "\n").first { $0.hasPrefix("cc ") })
        let scratch = try Scratch()
        try scratch.write("hello.c", String(source))
        // The header of this clone, where an installed one gives `pkg-config --cflags pushhost`.
        let arguments = ccLine.replacingOccurrences(of: "$(pkg-config --cflags pushhost)", with: "-I \(Paths.include.path)")
            .split(separator: " ").dropFirst().map(String.init)
        let built = try Command.run("cc", arguments + ["-Werror"], directory: scratch.path)
        #expect(built.status == 0, "\(built.stderr)")
        let listing = try Command.pushhost(["plugins", "--json", "--plugin", scratch.file("hello.so")])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains(#""name":"hello""#))
        #expect(listing.stdout.contains(#""roles":["background"]"#))
    }
}
