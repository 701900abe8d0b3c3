import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The nats plugin saying who it is with an NKey seed (`nkey_seed_file`) or
/// a `.creds` file of an operator's user (`credentials`), against a real
/// `nats-server` configured for each: the right key reads the stream, in the
/// host and behind a worker's walls; another key, a user the server does not
/// know or whose JWT expired, refuses the start with libnats's reason; and a
/// seed file others may read, or that holds no user seed, is refused naming
/// the file and why. The keys, JWTs and `.creds` files are made in the test
/// by `natskeys` (Tests/Fixtures/nats/natskeys), with the NATS project's Go
/// libraries nkeys and jwt.
@Suite(.enabled(if: NatsKeys.canRun, "needs nats-server, libnats-dev, libssl-dev, golang-go, golang-github-nats-io-nkeys-dev and golang-github-nats-io-jwt-dev"))
struct NatsCredentialsTests {
    /// Starts a host with `start(name)` and waits until it reads the stream;
    /// the host and its name, or nil (an issue recorded). (libnats 3.4
    /// refuses one NKey login in 256, nats-io/nats.c#705: the plugin tries
    /// such a refusal twice more, connection.c.)
    static func reading(_ name: String, _ start: (String) throws -> HostProcess) throws -> (host: HostProcess, name: String)? {
        let host = try start(name)
        if host.waitForStderr("info nats: reading the stream") { return (host, name) }
        Issue.record("\(name) does not read the stream:\n\(host.stderr)")
        return nil
    }

    /// Whether a host that `start` starts delivers a record that `publish`
    /// sends once it reads the stream; then it stops.
    static func delivers(_ scratch: Scratch, _ start: (String) throws -> HostProcess, publish: (String) throws -> Void) throws -> Bool {
        guard let (host, name) = try reading("reader", start) else { return false }
        try publish(natsRecord("secured"))
        var ids: [String] = []
        eventually(timeout: .seconds(30)) {
            ids = ((try? scratch.reportLines("\(name)-report.ndjson", lenient: true)) ?? []).compactMap { $0["id"] as? String }
            return !ids.isEmpty
        }
        #expect(host.stop() == .status(0), "\(host.stderr)")
        return ids == ["secured"]
    }

    /// `delivers` with a NatsHost of `server` (NatsSecurityTests.delivers,
    /// given a second try).
    static func delivers(_ scratch: Scratch, _ server: NatsServer, _ settings: [String: String], isolated: Bool = false, grants: [String] = []) throws -> Bool {
        let probe = try scratch.probe("probe", [.data])
        return try delivers(scratch, { name in
            try NatsHost(name, scratch, server: server, settings: settings, plugins: probe,
                         options: isolated ? grants.flatMap { ["--set", "nats.sandbox.\($0)"] } : [], isolated: isolated).host
        }, publish: { try server.publish([$0], to: "pushes.news") })
    }

    // MARK: NKey seeds

    /// A server that knows `user` by its NKey, and the test's publisher by a password.
    static func nkeyServer(_ scratch: Scratch, user: NatsKeys.Key) throws -> NatsServer {
        let users = """
            authorization {
              users = [
                {nkey: \(user.publicKey)}
                {user: "tool", password: "toolpw"}
              ]
            }
            """
        return try NatsServer(scratch, extra: users, clientEnvironment: ["JETSTREAM_USER": "tool", "JETSTREAM_PASSWORD": "toolpw"])
    }

    @Test(arguments: [false, true])
    func aUserNKeySeedReadsTheStream(isolated: Bool) throws {
        let scratch = try Scratch()
        let user = try NatsKeys.key("user")
        let server = try Self.nkeyServer(scratch, user: user)
        let seed = try NatsKeys.secret(scratch, "keys/user.nk", user.seed + "\n")
        #expect(try Self.delivers(scratch, server, ["nkey_seed_file": seed], isolated: isolated, grants: ["read=" + scratch.file("keys")]))
    }

    /// nsc's decorated form of a seed, between ----- markers, reads as well.
    @Test func aDecoratedSeedFileReadsTheStream() throws {
        let scratch = try Scratch()
        let user = try NatsKeys.key("user")
        let server = try Self.nkeyServer(scratch, user: user)
        let seed = try NatsKeys.secret(
            scratch, "keys/decorated.nk", "-----BEGIN USER NKEY SEED-----\n\(user.seed)\n------END USER NKEY SEED------\n")
        #expect(try Self.delivers(scratch, server, ["nkey_seed_file": seed]))
    }

    @Test func theSeedOfAnotherUserIsRefusedWithTheReason() throws {
        let scratch = try Scratch()
        let server = try Self.nkeyServer(scratch, user: try NatsKeys.key("user"))
        let other = try NatsKeys.key("user")
        let seed = try NatsKeys.secret(scratch, "keys/other.nk", other.seed + "\n")
        let log = try NatsSecurityTests.refused(scratch, server, ["nkey_seed_file": seed], name: "other")
        #expect(log.contains("error nats: cannot connect to \(server.url): Authorization Violation"), "\(log)")
        #expect(log.contains("error pushhost: plugin nats: its source did not start"), "\(log)")
        #expect(!log.contains("no NATS server answers"), "a refusal is not a server that is down")
        #expect(!log.contains(other.seed), "the seed is in the log")
    }

    @Test func seedFilesOthersMayReadOrWithoutAUserSeedAreRefused() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let user = try NatsKeys.key("user")
        let account = try NatsKeys.key("account")
        let open = try NatsKeys.secret(scratch, "open.nk", user.seed + "\n", mode: 0o644)
        let link = scratch.file("linked.nk")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: try NatsKeys.secret(scratch, "target.nk", user.seed))
        let garbage = try NatsKeys.secret(scratch, "garbage.nk", "not a seed at all\n")
        let index = user.seed.index(user.seed.startIndex, offsetBy: 20)
        let mistyped = try NatsKeys.secret(
            scratch, "mistyped.nk", user.seed.replacingCharacters(in: index...index, with: user.seed[index] == "A" ? "B" : "A"))
        let badCharacter = try NatsKeys.secret(
            scratch, "bad-character.nk", user.seed.replacingCharacters(in: index...index, with: "1"))
        let accountSeed = try NatsKeys.secret(scratch, "account.nk", account.seed + "\n")
        let publicKey = try NatsKeys.secret(scratch, "public.nk", user.publicKey + "\n")
        let long = try NatsKeys.secret(scratch, "long.nk", user.seed + "AB\n")
        let empty = try NatsKeys.secret(scratch, "empty.nk", "\n\n")
        let jwt = try NatsKeys.secret(
            scratch, "user.jwt", "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n------END NATS USER JWT------\n")
        let good = try NatsKeys.secret(scratch, "good.nk", user.seed + "\n")
        let password = try NatsKeys.secret(scratch, "password", "s3cret\n")
        let credentials = try NatsKeys.secret(scratch, "user.creds", "")
        let missing = scratch.file("missing.nk")
        let notSeed = { (path: String) in "error nats: setting nkey_seed_file: \(path) does not hold a user NKey seed: " }
        let cases: [([String: String], String)] = [
            (["nkey_seed_file": open],
             "error nats: setting nkey_seed_file: \(open) holds secrets and its group or others may use it (mode 644); chmod 600 it"),
            (["nkey_seed_file": link], "error nats: setting nkey_seed_file: \(link) is not a regular file (a symbolic link is not followed)"),
            (["nkey_seed_file": missing], "error nats: setting nkey_seed_file: \(missing): No such file or directory"),
            (["nkey_seed_file": garbage], notSeed(garbage) + "it is too short for a seed (58 characters)"),
            (["nkey_seed_file": long], notSeed(long) + "it is too long for a seed (58 characters)"),
            (["nkey_seed_file": mistyped], notSeed(mistyped) + "its checksum (CRC16) does not match: it was mistyped or cut"),
            (["nkey_seed_file": badCharacter], notSeed(badCharacter) + "it has a character an NKey does not (A to Z, 2 to 7)"),
            (["nkey_seed_file": accountSeed], notSeed(accountSeed) + "it is an account's seed (SA...), not a user's (SU...)"),
            (["nkey_seed_file": publicKey], notSeed(publicKey) + "it holds a public key; the setting takes the seed (SU...)"),
            (["nkey_seed_file": empty], notSeed(empty) + "it is empty"),
            (["nkey_seed_file": jwt], notSeed(jwt) + "it holds a JWT; a .creds file goes in the setting credentials"),
            (["nkey_seed_file": good, "user": "pushhost", "password_file": password],
             "error nats: settings user and nkey_seed_file: one way to say who the plugin is, not both"),
            (["nkey_seed_file": good, "credentials": credentials],
             "error nats: settings credentials and nkey_seed_file: one way to say who the plugin is, not both"),
        ]
        for (index, (settings, line)) in cases.enumerated() {
            let log = try NatsSecurityTests.refused(scratch, server, settings, name: "case\(index)")
            #expect(log.contains(line), "\(settings):\n\(log)")
            #expect(!log.contains(user.seed) && !log.contains(account.seed), "a seed is in the log")
        }
    }

    // MARK: .creds of an operator's user

    @Test(arguments: [false, true])
    func credsOfAnOperatorsUserReadTheStream(isolated: Bool) throws {
        let scratch = try Scratch()
        let identities = try NatsKeys.Operator(scratch, "operator")
        let server = try OperatorServer(scratch, identities)
        let probe = try scratch.probe("probe", [.data])
        #expect(try Self.delivers(scratch, { name in
            try server.host(name, settings: ["credentials": identities.userCreds], plugins: probe,
                            options: isolated ? ["--set", "nats.sandbox.read=" + identities.folder] : [], isolated: isolated)
        }, publish: { try server.publish([$0], to: "pushes.news", as: identities.userCreds) }))
    }

    @Test func credsOfAUserTheServerDoesNotKnowAreRefused() throws {
        let scratch = try Scratch()
        let identities = try NatsKeys.Operator(scratch, "operator")
        let another = try NatsKeys.Operator(scratch, "another-operator")
        let server = try OperatorServer(scratch, identities)
        // A user of another operator's account, and one of an account the
        // operator signed but the server was never given.
        for (index, creds) in [another.userCreds, identities.strangerCreds].enumerated() {
            let log = try server.refused("stranger\(index)", settings: ["credentials": creds])
            #expect(log.contains("error nats: cannot connect to \(server.url): Authorization Violation"), "\(creds):\n\(log)")
            #expect(!log.contains("no NATS server answers"), "a refusal is not a server that is down")
        }
    }

    @Test func anExpiredUserJWTIsRefused() throws {
        let scratch = try Scratch()
        let identities = try NatsKeys.Operator(scratch, "operator")
        let server = try OperatorServer(scratch, identities)
        let log = try server.refused("expired", settings: ["credentials": identities.expiredCreds])
        #expect(log.contains("error nats: cannot connect to \(server.url): Authorization Violation"), "\(log)")
        #expect(server.log.contains("User JWT no longer valid") && server.log.contains("claim is expired"), "the server's reason:\n\(server.log)")
    }
}

/// `natskeys` (Tests/Fixtures/nats/natskeys/main.go), built once per test
/// process with Debian's Go and its nkeys and jwt packages, outside modules,
/// into a folder removed at exit; and the publisher of the operator tests
/// (natskeys/creds-publish.c).
enum NatsKeys {
    /// Where Debian puts the Go packages' sources (GOPATH mode).
    static let gopath = "/usr/share/gocode"

    /// On CI always; elsewhere when the nats tests run, libcrypto's headers
    /// are there, and Go with the nkeys and jwt v2 sources.
    static let canRun = TransportBuild.canRun(libraries: ["libnats", "libcrypto"], programs: ["/usr/sbin/nats-server", "/usr/bin/go"])
        && (ProcessInfo.processInfo.environment["CI"] == "true"
            || ["nats-io/nkeys", "nats-io/jwt/v2"].allSatisfy { FileManager.default.fileExists(atPath: "\(gopath)/src/github.com/\($0)") })

    private static let folder: String? = {
        var template = Array((NSTemporaryDirectory() + "/pushhost-natskeys-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        atexit { if let folder = NatsKeys.folder { try? FileManager.default.removeItem(atPath: folder) } }
        return String(cString: made)
    }()

    /// The build's outcome, the first time it is asked for (a static let is made once, under a lock).
    private static let built: Result<String, CompileError> = {
        guard let folder else { return .failure(CompileError(output: "mkdtemp failed")) }
        let output = folder + "/natskeys"
        let environment = ["GO111MODULE": "off", "GOPATH": gopath, "GOCACHE": folder + "/go-cache", "GOFLAGS": ""]
        guard let run = try? Command.run(
            "go", ["build", "-o", output, "main.go"], environment: environment,
            directory: Paths.fixtures.appendingPathComponent("nats/natskeys").path)
        else { return .failure(CompileError(output: "go could not run")) }
        return run.status == 0 ? .success(output) : .failure(CompileError(output: "go build: " + run.stdout + run.rawStderr))
    }()

    static func tool() throws -> String { try built.get() }

    static func publisher() throws -> String { try TransportBuild.program("nats/natskeys/creds-publish.c", libraries: ["libnats"]) }

    /// An NKey: its seed (S...) and public key.
    struct Key {
        let seed: String
        let publicKey: String
    }

    /// A new NKey of `kind`: user, account or operator.
    static func key(_ kind: String) throws -> Key {
        let made = try Command.run(try tool(), ["key", kind])
        try #require(made.status == 0, "natskeys: \(made.rawStderr)")
        let lines = made.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "natskeys: \(made.stdout)")
        return Key(seed: lines[0], publicKey: lines[1])
    }

    /// Writes `text` to the scratch file `name` with `mode` (a file of secrets: 0600); its path.
    static func secret(_ scratch: Scratch, _ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = try scratch.write(name, text)
        chmod(path, mode)
        return path
    }

    /// An operator, its account with JetStream, the system account, and
    /// users' .creds, made by `natskeys operator` in the scratch folder `name`.
    struct Operator {
        let folder: String
        var userCreds: String { folder + "/user.creds" }
        var expiredCreds: String { folder + "/expired.creds" }
        var strangerCreds: String { folder + "/stranger.creds" }

        init(_ scratch: Scratch, _ name: String) throws {
            folder = scratch.file(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let made = try Command.run(try NatsKeys.tool(), ["operator", folder])
            try #require(made.status == 0, "natskeys: \(made.rawStderr)")
        }

        func read(_ file: String) throws -> String {
            try String(contentsOfFile: folder + "/" + file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The server's configuration that trusts it, its accounts preloaded.
        func serverConfig() throws -> String {
            """
            operator: "\(folder)/operator.jwt"
            system_account: \(try read("sys.pub"))
            resolver: MEMORY
            resolver_preload: {
              \(try read("account.pub")): "\(try read("account.jwt"))"
              \(try read("sys.pub")): "\(try read("sys.jwt"))"
            }
            """
        }
    }
}

/// A real `nats-server` with JetStream that trusts an operator (`operator`,
/// `resolver: MEMORY`), with debug logging for its reasons. NatsServer cannot
/// be: it writes a `mappings` block, an account's configuration, which a
/// server in operator mode refuses.
final class OperatorServer {
    private let scratch: Scratch
    private let process = Process()
    private let logPath: String
    private(set) var port = -1
    var url: String { "nats://127.0.0.1:\(port)" }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    init(_ scratch: Scratch, _ identities: NatsKeys.Operator) throws {
        self.scratch = scratch
        let config = try scratch.write("operator-nats/server.conf", """
            listen: 127.0.0.1:-1
            debug: true
            jetstream { store_dir: "\(scratch.file("operator-nats/store"))" }
            \(try identities.serverConfig())

            """)
        logPath = scratch.file("operator-nats/server.log")
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nats-server")
        process.arguments = ["-c", config, "-l", logPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        eventually(timeout: .seconds(10)) { log.contains("Server is ready") || !process.isRunning }
        let listening = try #require(log.range(of: "Listening for client connections on 127.0.0.1:"), "nats-server did not start:\n\(log)")
        port = try #require(Int(log[listening.upperBound...].prefix { $0.isNumber }))
    }

    /// SIGKILL, as NatsServer does.
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Publishes each of `records` to `subject` as the user of `creds`, and waits until each is stored.
    func publish(_ records: [String], to subject: String, as creds: String) throws {
        let result = try Command.run(try NatsKeys.publisher(), [url, creds, subject], stdin: records.joined(separator: "\n") + "\n")
        let logEnd = log.split(separator: "\n").suffix(12).joined(separator: "\n")
        try #require(result.status == 0, "\(result.rawStderr)the server's log ends:\n\(logEnd)")
    }

    /// A host `name` reading this server, as NatsHost starts one (its
    /// defaults, `settings` over them; `isolated`: behind walls that let
    /// nats connect to the server).
    func host(_ name: String, settings: [String: String], plugins: [String] = [], options: [String] = [], isolated: Bool = false) throws -> HostProcess {
        let all = NatsHost.defaults.merging(["servers": url]) { $1 }.merging(settings) { $1 }
        return try HostProcess(
            ["run", "--state", scratch.file("\(name)-state"), "--report", scratch.file("\(name)-report.ndjson"),
             "--plugin", try NatsPlugin.path()]
                + all.sorted { $0.key < $1.key }.flatMap { ["--set", "nats.\($0.key)=\($0.value)"] } + plugins + options
                + TransportWorker.walled(isolated, "nats", grants: ["connect=127.0.0.1:\(port)"]),
            errorPath: scratch.file("\(name)-stderr.log"))
    }

    /// The log of a host with `settings` that must refuse its start (exit 1).
    func refused(_ name: String, settings: [String: String]) throws -> String {
        let host = try host(name, settings: settings)
        #expect(host.waitForExit() == .status(1), "\(host.stderr)")
        return host.stderr
    }
}
