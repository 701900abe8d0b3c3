import Testing

@testable import PushHostPlugins
@testable import PushHostSystem

/// A plugin's grants, as its settings file and `--set` give them: a list in
/// the file is one setting, its items one per line; `--set` adds to a list
/// and replaces the rest; whatever is malformed is named.
@Suite struct SandboxGrantsTests {
    static func settings(_ json: String) throws -> [String: String] {
        try SettingsFile.parse(Array(json.utf8), file: "p.json")
    }

    @Test func aSettingsFileListBecomesLinesAndSetAddsToIt() throws {
        let file = try Self.settings(#"{"colour": "blue", "sandbox": {"read": ["/usr", "/etc"], "exec": true, "memory": 64}}"#)
        #expect(file == ["colour": "blue", "sandbox.read": "/usr\n/etc", "sandbox.exec": "true", "sandbox.memory": "64"])
        let merged = SandboxGrants.merge(file, [("sandbox.read", "/tmp"), ("sandbox.exec", "false"), ("colour", "red")])
        let grants = try SandboxGrants(settings: merged)
        #expect(grants.read == ["/usr", "/etc", "/tmp"])
        #expect(grants.exec == false && grants.memory == 64)
        #expect(merged["colour"] == "red")
    }

    @Test(arguments: [
        (#"{"sandbox": {"read": [1]}}"#, "each item of \"sandbox\": {\"read\"} must be a string on one line"),
        (#"{"sandbox": {"read": ["/a\nb"]}}"#, "each item of \"sandbox\": {\"read\"} must be a string on one line"),
        (#"{"sandbox": {"read": {"x": 1}}}"#, "the value of \"sandbox\": {\"read\"} must be a string, number, boolean or list"),
        (#"{"other": {"read": []}}"#, "the value of \"other\" must be a string, number or boolean"),
    ])
    func aMalformedSandboxObjectIsRefused(_ json: String, _ reason: String) {
        #expect(throws: PluginRefusal.badSettings(file: "p.json", reason: reason)) { try Self.settings(json) }
    }

    @Test func connectTakesHostAndPort() throws {
        let grants = try SandboxGrants(settings: ["sandbox.connect": "nats.example.org:4222\n[::1]:80"])
        #expect(grants.connect.map(\.host) == ["nats.example.org", "[::1]"])
        #expect(grants.connect.map(\.port) == [4222, 80])
        #expect(throws: SandboxProblem.self) { try SandboxGrants(settings: ["sandbox.connect": "host:0"]) }
        #expect(throws: SandboxProblem.self) { try SandboxGrants(settings: ["sandbox.connect": "host:65536"]) }
    }
}
