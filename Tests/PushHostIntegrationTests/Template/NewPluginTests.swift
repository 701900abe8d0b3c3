import Foundation
import Testing

/// `pushhost new plugin`, as a new plugin author uses it: the installed
/// pushhost writes a project, `make` builds it against the installed header
/// (pkg-config) or Swift SDK, and `make test` runs it under the installed
/// pushhost and passes; a broken handler makes that test fail.
@Suite struct NewPluginTests {
    static let everyRole = "data,background,screen,token,action,interceptor,source"

    @Test("a C plugin with each role alone, and with every role, builds against the installed header and passes its test",
          arguments: ["data", "background", "screen", "token", "action", "interceptor", "source", everyRole])
    func cPluginPassesItsTest(roles: String) async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let project = try Self.make(installed, name: "hello-c", language: "c", roles: roles, in: scratch)
        #expect(project.built.stdout.contains("-I\(installed.prefix)/include"), "\(project.built.stdout)")
        #expect(!project.built.stderr.contains("warning"), "\(project.built.stderr)")
        // An action comes for a message some plugin delivered: background comes with it.
        try Self.expectListed(installed, project.library, roles: roles == "action" ? "action,background" : roles)
    }

    @Test("a Swift plugin with every role builds against the installed SDK and passes its test")
    func swiftPluginPassesItsTest() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let project = try Self.make(installed, name: "hello-swift", language: "swift", roles: Self.everyRole, in: scratch)
        let manifest = scratch.read("hello-swift/Package.swift")
        #expect(manifest.contains(#".package(path: "\#(installed.prefix)/share/pushhost/PushHostPlugin")"#), "\(manifest)")
        #expect(!project.built.stdout.contains("warning:"), "\(project.built.stdout)")
        try Self.expectListed(installed, project.library, roles: Self.everyRole)
    }

    @Test("a Swift plugin with the action role alone gets background too, and passes its test")
    func swiftActionAlone() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let project = try Self.make(installed, name: "taps", language: "swift", roles: "action", in: scratch)
        #expect(project.written.stdout.contains("taps: added the role background"), "\(project.written.stdout)")
        try Self.expectListed(installed, project.library, roles: "background,action")
    }

    static let programRoles = "data,background,screen,token,action"

    @Test("a process plugin in Python, Node.js or sh with every role it can have passes its test under the installed pushhost, behind the walls",
          arguments: ["python", "node", "shell"])
    func programPassesItsTest(language: String) async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let name = "hello-\(language)"
        _ = try Self.make(installed, name: name, language: language, roles: Self.programRoles, in: scratch)
        // The project's folder holds the manifest, and the program's folder beside it.
        let sdk = ["python": "\(name)/\(name)/pushhost.py", "node": "\(name)/\(name)/pushhost.js"][language]
        if let sdk {
            // The SDK is the installed one, copied beside the program, where its walls let it read.
            let installedSDK = installed.prefix + "/share/pushhost/sdk/" + (language == "node" ? "node/pushhost.js" : "python/pushhost.py")
            #expect(scratch.read(sdk) == (try String(contentsOfFile: installedSDK, encoding: .utf8)))
        }
        let listing = try Command.run(installed.pushhost, ["plugins", "--process", scratch.file("\(name)/\(name).process.json")])
        #expect(listing.stdout.contains("  roles: data, background, screen, token, action; targets: \(name)\n"), "\(listing.stdout)")
    }

    @Test("a handler that does the wrong thing fails the generated test, which says which line and why")
    func brokenHandlerFailsTheTest() async throws {
        let installed = try await Installation.shared()
        let scratch = try Scratch()
        let folder = scratch.file("quiet")
        let written = try Command.run(installed.pushhost, ["new", "plugin", "quiet", "--role", "data,background", "--output", folder])
        try #require(written.status == 0, "\(written.stderr)")
        // The data handler stops suppressing "quiet" messages.
        let source = folder + "/quiet.c"
        let text = try String(contentsOfFile: source, encoding: .utf8)
        try #require(text.contains("PH_SUPPRESS : PH_CONTINUE"))
        try text.replacingOccurrences(of: "PH_SUPPRESS : PH_CONTINUE", with: "PH_CONTINUE : PH_CONTINUE")
            .write(toFile: source, atomically: false, encoding: .utf8)
        let test = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(installed.pushhost)"],
                                   environment: ["PKG_CONFIG_PATH": installed.pkgconfigdir])
        #expect(test.status != 0)
        #expect(test.stdout.contains("""
            test/expected.ndjson:
            expected line 2 (id "m-quiet"), report line 2:
              status: expected "suppressed", got "delivered"
              route: expected "none", got "background"
              the report line: {"id":"m-quiet","target":null,"status":"delivered","route":"background"
            """), "\(test.stdout)")
        #expect(test.stdout.contains("check: 1 of 2 expected lines match; 1 differ"), "\(test.stdout)")
        // The JUnit file a CI shows says the same, for the one test case that failed.
        let junit = scratch.read("quiet/test/results/expected.xml")
        #expect(junit.contains(#"<testsuites tests="3" failures="1">"#), "\(junit)")
        #expect(junit.contains(#"<testcase classname="pushhost.check" name="line 2: m-quiet">"#), "\(junit)")
        // A log line it no longer writes fails it too.
        try "quiet: background m-1: Goodbye\n".write(toFile: folder + "/test/expected.log", atomically: false, encoding: .utf8)
        let again = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(installed.pushhost)"],
                                    environment: ["PKG_CONFIG_PATH": installed.pkgconfigdir])
        #expect(again.status != 0)
        #expect(again.stdout.contains("FAIL test/expected.log: no log line with: quiet: background m-1: Goodbye"), "\(again.stdout)")
    }

    @Test("from a build of the source tree, a C plugin finds the tree's header and passes its test")
    func fromTheSourceTree() throws {
        let scratch = try Scratch()
        let folder = scratch.file("tree")
        let written = try Command.pushhost(["new", "plugin", "tree", "--role", "background,token", "--output", folder])
        try #require(written.status == 0, "\(written.stderr)")
        let makefile = scratch.read("tree/Makefile")
        #expect(makefile.contains("|| echo -I\(Paths.include.path))"), "\(makefile)")
        // pkg-config must not find another pushhost first.
        let test = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(Paths.pushhost)"],
                                   environment: ["PKG_CONFIG_PATH": scratch.path, "PKG_CONFIG_LIBDIR": scratch.path])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("-I\(Paths.include.path)"), "\(test.stdout)")
        #expect(test.stdout.contains("ok: tree passed (1 runs)"), "\(test.stdout)")
    }

    @Test("from a build of the source tree, a Python plugin copies the tree's SDK and passes its test")
    func pythonFromTheSourceTree() throws {
        let scratch = try Scratch()
        let folder = scratch.file("tree-py")
        let written = try Command.pushhost(["new", "plugin", "tree-py", "--language", "python", "--role", "data,background", "--output", folder])
        try #require(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("next: cd \(folder) && make test"), "\(written.stdout)")
        #expect(scratch.read("tree-py/tree-py/pushhost.py") == (try String(contentsOf: Paths.packageRoot.appendingPathComponent("sdk/python/pushhost.py"), encoding: .utf8)))
        let test = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(Paths.pushhost)"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("ok: tree-py passed (1 runs)"), "\(test.stdout)")
    }

    @Test("from a build of the source tree, a Swift plugin builds against sdk/ with an empty cache and resolves no other package")
    func swiftFromTheSourceTree() throws {
        let scratch = try Scratch()
        let folder = scratch.file("tree-swift")
        let written = try Command.pushhost(["new", "plugin", "tree-swift", "--language", "swift", "--role", "data,background", "--output", folder])
        try #require(written.status == 0, "\(written.stderr)")
        let sdk = Paths.packageRoot.appendingPathComponent("sdk").path
        #expect(scratch.read("tree-swift/Package.swift").contains(#".package(path: "\#(sdk)")"#))
        // A CI runner's first build: a home with no SwiftPM cache or configuration.
        let home = scratch.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let start = ContinuousClock.now
        let built = try Command.run("nice", ["-n", "19", "make", "-C", folder], environment: ["HOME": home, "XDG_CACHE_HOME": home + "/.cache"])
        let time = ContinuousClock.now - start
        try #require(built.status == 0, "\(built.stdout)\(built.stderr)")
        print("a Swift plugin built against sdk/ (release, empty cache) in \(time)")
        let said = built.stdout + built.stderr
        #expect(!said.contains("Fetching") && !said.contains("Cloning"), "\(said)")
        expectResolvedNothing(folder)
        let test = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(Paths.pushhost)"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("ok: tree-swift passed (1 runs)"), "\(test.stdout)")
    }

    @Test("refusals: a bad name, an unknown role or language, a folder that is not empty, an SDK that is not a package")
    func refusals() throws {
        let scratch = try Scratch()
        try scratch.write("full/file", "mine")
        let cases: [(arguments: [String], status: Int32, error: String)] = [
            (["Bad"], 2, #"the plugin name "Bad" must be 1 to 64 of [a-z0-9_-], starting with a letter"#),
            (["1st"], 2, #"the plugin name "1st" must be 1 to 64 of [a-z0-9_-], starting with a letter"#),
            (["ok", "--role", "data,poll"], 2, #"unknown role "poll" (roles: data, background, screen, token, action, interceptor, source)"#),
            (["ok", "--language", "rust"], 2, #"unknown language "rust" (languages: c, swift, python, node, shell)"#),
            (["ok", "--language", "python", "--role", "data,interceptor"], 2,
             "a python plugin cannot be an interceptor (a process plugin has the roles data, background, screen, token and action)"),
            (["ok", "--output", scratch.file("full")], 1, "\(scratch.file("full")) is there and is not empty: pushhost new writes only into a new or empty folder"),
            (["ok", "--language", "swift", "--sdk", scratch.path], 2, "--sdk \(scratch.path): no Package.swift there (give the folder of the package that has PushHostPlugin)"),
        ]
        for (arguments, status, error) in cases {
            let result = try Command.run(Paths.pushhost, ["new", "plugin"] + arguments, directory: scratch.path)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("error pushhost: \(error)"), "\(arguments): \(result.stderr)")
        }
        #expect(scratch.read("full/file") == "mine")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("ok")))
    }

    /// What `make` made of a generated project.
    struct Project {
        let written: Command
        let built: Command
        let library: String
    }

    /// Writes NAME with the installed pushhost, builds it with `make`, runs
    /// `make test`, and requires each step to succeed.
    static func make(_ installed: Installation, name: String, language: String, roles: String, in scratch: Scratch) throws -> Project {
        let folder = scratch.file(name)
        let environment = ["PKG_CONFIG_PATH": installed.pkgconfigdir]
        let written = try Command.run(installed.pushhost, ["new", "plugin", name, "--language", language, "--role", roles, "--output", folder])
        try #require(written.status == 0, "\(written.stderr)")
        let built = try Command.run("nice", ["-n", "19", "make", "-C", folder], environment: environment)
        try #require(built.status == 0, "\(built.stdout)\(built.stderr)")
        let test = try Command.run("make", ["-C", folder, "test", "PUSHHOST=\(installed.pushhost)"], environment: environment)
        try #require(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("ok: \(name) passed"), "\(test.stdout)")
        return Project(written: written, built: built, library: "\(folder)/lib\(name).so")
    }

    /// `pushhost plugins --json` lists the library with the roles asked for
    /// (`interceptor` and `source` from its declared extensions), no more.
    static func expectListed(_ installed: Installation, _ library: String, roles: String) throws {
        let listing = try Command.run(installed.pushhost, ["plugins", "--json", "--plugin", library])
        #expect(listing.status == 0, "\(listing.stderr)")
        let entry = try #require(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])
        let listed = Set((entry["roles"] as? [String]) ?? [])
        #expect(listed == Set(roles.split(separator: ",").map(String.init)), "listed \(listed.sorted()) for \(roles)")
    }
}
