import Foundation
import Testing

/// What the host learns of the plugin before it runs: its listing, and the
/// settings it refuses.
@Suite struct SetupTests {
    /// `pushhost plugins` lists it as a source with a state folder, without running it.
    @Test func theListingShowsASourceWithAStateFolder() throws {
        let listing = try Command.run(try Paths.pushhost(), ["plugins", "--json", "--plugin", try Paths.plugin()])
        #expect(listing.status == 0, "\(listing.output)")
        let line = try #require(listing.output.split(separator: "\n").first { $0.hasPrefix("{") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["name"] as? String == "ntfy")
        #expect(json["roles"] as? [String] == ["source", "state"], "\(json)")
        #expect(json["extensions"] as? [String] == ["ph.source/1", "ph.intake/1", "ph.state/1"], "\(json)")
    }

    static let good = ["url": "http://127.0.0.1:9", "topic": "alerts"]

    /// Settings the plugin refuses, each with (a part of) its reason.
    static let refused: [([String: String?], String)] = [
        (["url": nil], "url is required: the ntfy server's address"),
        (["url": "ftp://ntfy.example.org"], #"url must be an http:// or https:// address, not "ftp://ntfy.example.org""#),
        (["url": "ntfy.example.org"], #"url must be an http:// or https:// address, not "ntfy.example.org""#),
        (["url": "http://"], #"url "http://" has no valid host"#),
        (["url": "https://ntfy.example.org/?x=1"], "must not hold a query (?) or a fragment (#)"),
        (["url": "https://me:secret@ntfy.example.org"], "must not hold a user name or password"),
        (["url": "http://ntfy.example.org:70000"], #"has a bad port: "70000" is not a number from 1 to 65535"#),
        (["url": "http://ntfy example.org"], "holds a space, a control character or a non-ASCII character"),
        (["topic": nil], "topic is required: the name of the ntfy topic to follow"),
        (["topic": "a/b"], #"topic "a/b" is not an ntfy topic: 1 to 64 characters, each a letter, a digit, - or _"#),
        (["topic": String(repeating: "t", count: 65)], "is not an ntfy topic"),
        (["topic": "caf\u{e9}"], "is not an ntfy topic"),
        (["since": "yesterday"], #"since must be "new""#),
        (["backoff_min": "5", "backoff_max": "1"], "backoff_min (5 s) must not be above backoff_max (1 s)"),
        (["backoff_max": "soon"], #"backoff_max must be a number of seconds from 0.01 to 3600, not "soon""#),
        (["backoff_min": "0"], "backoff_min must be a number of seconds"),
        (["max_line": "12"], "max_line must be a whole number from 64 to 67108864"),
        (["idle_timeout": "-1"], "idle_timeout must be a number of seconds"),
        (["retries": "many"], "retries must be a whole number from 0 to 1000"),
    ]

    /// A refused setting fails `create`: the host logs the plugin's reason,
    /// refuses the plugin and exits 1 before running anything.
    @Test(arguments: refused.indices)
    func aBadSettingIsRefusedWithItsReason(_ index: Int) throws {
        let (changes, reason) = Self.refused[index]
        var settings = Self.good
        for (key, value) in changes { settings[key] = value }
        let scratch = try Scratch()
        let host = try Host(scratch, settings)
        let status = host.process.exitStatus(within: .seconds(15))
        #expect(status == 1, "\(host.stderr)")
        #expect(host.stderr.contains("error ntfy: could not start: "), "\(host.stderr)")
        #expect(host.stderr.contains(reason), "\(host.stderr)")
        #expect(host.stderr.contains("error pushhost: refused plugin"), "\(host.stderr)")
    }

    /// The same settings with good values start and follow (so that each
    /// refusal above is the bad value's doing).
    @Test func goodSettingsStart() throws {
        let scratch = try Scratch()
        let server = try NtfyServer(scratch)
        let settings = [
            "url": server.url + "//", "topic": "alerts", "since": "new", "backoff_min": "0.2", "backoff_max": "1",
            "max_line": "64", "idle_timeout": "30", "retries": "0",
        ]
        let host = try Host(scratch, settings)
        try #require(eventually { server.subscribers("alerts") == 1 || !host.process.isRunning }, "\(host.stderr)")
        #expect(host.stop() == 0, "\(host.stderr)")
        #expect(host.stderr.contains("info ntfy: connected: GET \(server.url)/alerts/json"), "\(host.stderr)")
    }
}
