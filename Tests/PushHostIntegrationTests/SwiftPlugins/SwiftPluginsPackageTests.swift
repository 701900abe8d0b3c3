import Foundation
import Testing

/// A plugin package of a third-party author, outside this repository, built
/// with `swift build` against `PushHostPlugin` and loaded by `pushhost`.
@Suite struct SwiftPluginsPackageTests {
    @Test func packageIsPlainSwiftOutsideThisRepositoryAndBuilds() throws {
        let package = try PluginPackage.shared()
        print("plugin package built in \(package.buildTime) at \(package.root)")
        #expect(package.root.hasPrefix("/tmp/"))
        #expect(!package.root.hasPrefix(Paths.packageRoot.path + "/"))
        for (path, text) in PluginPackage.files {
            let onDisk = try String(contentsOfFile: package.root + "/" + path, encoding: .utf8)
            #expect(onDisk == text, "\(path)")
            #expect(!onDisk.localizedCaseInsensitiveContains("unsafe"), "\(path) says unsafe")
        }
        let manifest = PluginPackage.manifest
        #expect(manifest.hasPrefix("// swift-tools-version: 6.1\n"))
        #expect(manifest.contains(#".package(path: "\#(Paths.packageRoot.path)/sdk")"#), "\(manifest)")
        #expect(manifest.contains(#".library(name: "slow", type: .dynamic, targets: ["Slow"])"#), "\(manifest)")
        #expect(manifest.contains(#".product(name: "PushHostPlugin", package: "sdk")"#), "\(manifest)")
        for plugin in PluginPackage.plugins {
            #expect(FileManager.default.fileExists(atPath: package.library(plugin.name)), "no lib\(plugin.name).so")
        }
        #expect(!package.buildOutput.contains("warning:"), "\(package.buildOutput)")
        // Its build stays in its own folder, and resolved no package but the
        // SDK: none of the host's (argument parser, logging, metrics, NIO).
        #expect(FileManager.default.fileExists(atPath: package.root + "/.build"))
        expectResolvedNothing(package.root)
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: package.products + "/Modules")) ?? []
        #expect(Set(modules.filter { $0.hasSuffix(".swiftmodule") }) == Set(["PushHostPlugin.swiftmodule"] + PluginPackage.plugins.map { "\($0.target).swiftmodule" }), "\(modules.sorted())")
    }

    @Test func pluginsAreListedWithTheirRoles() throws {
        let package = try PluginPackage.shared()
        let names = ["slow", "shelf", "tokens"]
        let listing = try Command.pushhost(["plugins", "--json"] + names.flatMap { ["--plugin", package.library($0)] })
        #expect(listing.status == 0, "\(listing.stderr)")
        let entries = try listing.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(entries.map { $0["name"] as? String } == names)
        #expect(entries.map { $0["file"] as? String } == names.map(package.library))
        #expect(entries.map { $0["roles"] as? [String] } == [["data"], ["screen"], ["token"]])
        #expect(entries.map { $0["targets"] as? [String] } == [[], ["shelf"], []])
        #expect(entries.map { $0["description"] as? String } == [
            "Waits data.delay_ms (or its delay_ms setting), then continues.",
            "Foreground screen for the shelf target.",
            "Writes down new registration tokens.",
        ])
        #expect(entries.allSatisfy { $0["version"] as? String == "0.1.0" && $0["abi"] as? String == "1.2" })
    }

    /// An init that throws: `create` returns NULL, the host refuses the
    /// file, and the thrown error's description is in the log.
    @Test func pluginWhoseInitThrowsIsRefused() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let file = package.library("grumpy")
        let result = try scratch.run(
            loading(file, as: "grumpy", ["reason": "the kettle is broken"]), stdin: ndjson(gcm("m1")))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        let refusal = result.errorLines.first { $0.contains("refused plugin") }
        #expect(refusal?.contains("refused plugin \(file): create returned NULL") == true, "\(result.stderr)")
        #expect(result.stderr.contains("error grumpy: could not start: grumpy will not start: the kettle is broken"), "\(result.stderr)")
    }
}
