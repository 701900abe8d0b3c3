import Foundation
import Testing

/// A malformed process manifest is refused with the key and the reason,
/// before any program starts.
@Suite struct ProcessManifestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let json: String
        let reason: String
        var testDescription: String { reason }
    }

    @Test(arguments: [
        Case(json: #"{"roles": ["background"]}"#, reason: #"the manifest needs "command", the program and its arguments"#),
        Case(json: #"{"command": "python3 x.py", "roles": ["background"]}"#, reason: "command must be an array of strings, not a string"),
        Case(json: #"{"command": [], "roles": ["background"]}"#, reason: "command: the first item, the program, is missing or empty"),
        Case(json: #"{"command": ["sh", ""], "roles": ["background"]}"#, reason: "command: item 2 is empty"),
        Case(json: #"{"command": ["sh", "a\u0000b"], "roles": ["background"]}"#, reason: "command: item 2 holds a NUL byte"),
        Case(json: #"{"command": ["sh"]}"#, reason: #"the manifest needs "roles" (data, background, screen, token, action)"#),
        Case(json: #"{"command": ["sh"], "roles": ["interceptor"]}"#, reason: #"roles: unknown role "interceptor" (roles: data, background, screen, token, action)"#),
        Case(json: #"{"command": ["sh"], "roles": ["data", "data"]}"#, reason: "roles: data is listed twice"),
        Case(json: #"{"command": ["sh"], "roles": []}"#, reason: "roles: the list is empty (roles: data, background, screen, token, action)"),
        Case(json: #"{"command": ["sh"], "roles": ["screen"]}"#, reason: #"screens: the screen role needs its targets, a non-empty "screens""#),
        Case(json: #"{"command": ["sh"], "roles": ["background"], "screens": ["a"]}"#, reason: #"screens: targets are for the screen role, which "roles" does not list"#),
        Case(json: #"{"command": ["sh"], "roles": ["background"], "settings": [1]}"#, reason: "settings must be an object, not an array"),
        Case(json: #"{"command": ["sh"], "roles": ["background"], "env": {}}"#, reason: #"the manifest: unknown key "env" (keys: command, roles, screens, settings, sandbox, version, description)"#),
        Case(json: #"{"command": ["sh"], "roles": ["background"]"#, reason: "manifest: "),
    ])
    func aMalformedManifestIsRefusedWithWhy(_ refused: Case) throws {
        let scratch = try Scratch()
        let manifest = try scratch.write("p.process.json", refused.json)
        let result = try scratch.run(["--process", manifest], stdin: "")
        #expect(result.status != 0)
        #expect(result.stderr.contains("error pushhost: refused plugin \(manifest): \(refused.reason)"), "\(result.stderr)")
    }

    @Test func aProcessFlagNamesAProcessManifest() throws {
        let scratch = try Scratch()
        let other = try scratch.write("p.json", "{}")
        let result = try scratch.run(["--process", other], stdin: "")
        #expect(result.status != 0)
        #expect(result.stderr.contains("--process \(other): a process manifest is named NAME.process.json"), "\(result.stderr)")
    }

    /// A manifest in a plugin folder is loaded beside the libraries, by name order.
    @Test func aPluginFolderLoadsItsProcessManifests() throws {
        let scratch = try Scratch()
        try scratch.program("p", roles: ["background"])
        let result = try scratch.run(["--plugins", scratch.path], stdin: ndjson(programMessage("m1")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.report().map { $0["ui"] as? [String] } == [["p"]])
    }
}
