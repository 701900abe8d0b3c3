import Foundation
import Testing

/// Issue 32, part 4: `pushhost plugins` takes the isolation flags of `run`
/// and says, for each plugin, whether a run with them would isolate it and
/// why; `--json` says `"isolated": true|false`.
@Suite struct IsolationListingTests {
    /// The `isolated:` line of each plugin block, by plugin name.
    static func isolatedLines(_ listing: String) -> [String: String] {
        var lines: [String: String] = [:]
        var name = ""
        for line in listing.split(separator: "\n").map(String.init) {
            if !line.hasPrefix(" ") { name = String(line.prefix { $0 != " " }) }
            if line.hasPrefix("  isolated: ") { lines[name] = String(line.dropFirst("  isolated: ".count)) }
        }
        return lines
    }

    /// `isolated` of each entry of a JSON listing, by plugin name.
    static func isolatedFlags(_ listing: String) throws -> [String: Bool] {
        var flags: [String: Bool] = [:]
        for entry in try jsonLines(listing) {
            let name = try #require(entry["name"] as? String, "\(entry)")
            flags[name] = try #require(entry["isolated"] as? Bool, "\(entry)")
        }
        return flags
    }

    /// Lists `plugins` with `flags`, as text and as JSON.
    static func list(_ plugins: [String], _ flags: [String]) throws -> (text: [String: String], json: [String: Bool]) {
        let text = try Command.pushhost(["plugins"] + plugins + flags)
        #expect(text.status == 0, "\(text.stderr)")
        let json = try Command.pushhost(["plugins", "--json"] + plugins + flags)
        #expect(json.status == 0, "\(json.stderr)")
        return (isolatedLines(text.stdout), try isolatedFlags(json.stdout))
    }

    static func plugins(_ scratch: Scratch) throws -> [String] {
        ["--plugin", try scratch.worker([.background])[1], "--plugin", try scratch.probe("other", [.data])[1]]
    }

    @Test func noFlagIsolatesNothing() throws {
        let scratch = try Scratch()
        let listing = try Self.list(try Self.plugins(scratch), [])
        #expect(listing.text == ["worker": "no", "other": "no"])
        #expect(listing.json == ["worker": false, "other": false])
    }

    @Test func isolateNameIsolatesThatPluginOnly() throws {
        let scratch = try Scratch()
        let listing = try Self.list(try Self.plugins(scratch), ["--isolate", "worker"])
        #expect(listing.text == ["worker": "yes (--isolate worker)", "other": "no"])
        #expect(listing.json == ["worker": true, "other": false])
    }

    @Test func isolateAllIsolatesEveryPlugin() throws {
        let scratch = try Scratch()
        let listing = try Self.list(try Self.plugins(scratch), ["--isolate", "all"])
        #expect(listing.text == ["worker": "yes (--isolate all)", "other": "yes (--isolate all)"])
        #expect(listing.json == ["worker": true, "other": true])
    }

    /// A settings file's `"isolate": true` isolates its plugin without any
    /// flag, and that plugin alone is scanned in a worker; `--set
    /// NAME.isolate=false` wins over it, as in a run.
    @Test func aSettingsFileIsolatesItsPlugin() throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin([])
        let environment = try scratch.loadLog(#""isolate": true, "#)
        let plugins = try Self.plugins(scratch) + ["--plugin", plugin]
        let text = try Command.pushhost(["plugins"] + plugins, environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(Self.isolatedLines(text.stdout) == ["worker": "no", "other": "no", "scan": #"yes ("isolate": true in \#(scratch.file("scan.json")))"#])
        // Its constructor ran in a child of `pushhost plugins`, not in it (a child of this test).
        let loads = scratch.loads()
        #expect(loads.count == 1 && loads[0].ppid != getpid(), "test \(getpid()): \(loads)")
        let json = try Command.pushhost(["plugins", "--json"] + plugins)
        #expect(try Self.isolatedFlags(json.stdout) == ["worker": false, "other": false, "scan": true])

        let overridden = try Self.list(plugins, ["--set", "scan.isolate=false"])
        #expect(overridden.text["scan"] == "no")
        #expect(overridden.json["scan"] == false)
    }

    @Test func setIsolateTrueIsolatesThatPlugin() throws {
        let scratch = try Scratch()
        let listing = try Self.list(try Self.plugins(scratch), ["--set", "other.isolate=true"])
        #expect(listing.text == ["worker": "no", "other": "yes (--set other.isolate=true)"])
        #expect(listing.json == ["worker": false, "other": true])
    }

    /// An ffi manifest is isolated as any plugin is; read by a scan in a
    /// worker, it is listed as when read in the host, but for that.
    @Test func anFFIManifestIsIsolatedAsAnyPlugin() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(handlers: [Legacy.background(), Legacy.token])
        let listing = try Self.list(["--ffi", manifest], ["--isolate", "all"])
        #expect(listing.text == ["legacy": "yes (--isolate all)"])
        #expect(listing.json == ["legacy": true])
        let scanned = try Command.pushhost(["plugins", "--json", "--ffi", manifest, "--isolate", "all", "--sandbox", "off"]).stdout
        let opened = try Command.pushhost(["plugins", "--json", "--ffi", manifest]).stdout
        #expect(!opened.isEmpty && scanned.replacingOccurrences(of: #""isolated":true"#, with: #""isolated":false"#) == opened,
                "scanned:\n\(scanned)\nopened here:\n\(opened)")
    }
}
