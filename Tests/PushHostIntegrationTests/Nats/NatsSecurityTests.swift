import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The nats plugin against a real `nats-server` that speaks TLS (a CA, a
/// server name, client certificates) or asks for a user and password: it
/// connects with the right ones, in the host and behind a worker's walls,
/// and a server it cannot trust, or a secret anybody else may read, refuses
/// the start with the reason.
@Suite(.enabled(if: NatsPlugin.canRun, "needs nats-server, libnats-dev and openssl"))
struct NatsSecurityTests {
    /// A CA, a server certificate for nats.test and 127.0.0.1, and a client
    /// certificate, all made here with openssl; and a second CA that vouches for nothing.
    struct Certificates {
        let folder: String
        var ca: String { folder + "/ca.pem" }
        var otherCA: String { folder + "/other-ca.pem" }
        var server: String { folder + "/server.pem" }
        var serverKey: String { folder + "/server.key" }
        var client: String { folder + "/client.pem" }
        var clientKey: String { folder + "/client.key" }

        init(_ scratch: Scratch) throws {
            folder = scratch.file("tls")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let sh = """
                set -e
                cd '\(folder)'
                key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
                key ca.key; key other-ca.key; key server.key; key client.key
                openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj '/CN=pushhost test CA'
                openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 -subj '/CN=another CA'
                printf 'subjectAltName=DNS:nats.test,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext
                printf 'extendedKeyUsage=clientAuth\\n' > client.ext
                openssl req -new -key server.key -out server.csr -subj '/CN=nats.test'
                openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
                openssl req -new -key client.key -out client.csr -subj '/CN=pushhost'
                openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 -extfile client.ext 2>/dev/null
                chmod 600 *.key
                """
            let made = try Command.run("/bin/sh", ["-c", sh])
            try #require(made.status == 0, "openssl: \(made.rawStderr)")
        }

        /// The server's `tls` block; `verify`: it asks clients for a certificate of the CA.
        func serverBlock(verify: Bool) -> String {
            """
            tls {
              cert_file: "\(server)"
              key_file: "\(serverKey)"
              ca_file: "\(ca)"
              verify: \(verify)
              timeout: 2
            }
            """
        }

        /// How the test's own client connects to such a server.
        var clientEnvironment: [String: String] { ["JETSTREAM_TLS_CA": ca, "JETSTREAM_TLS_CERT": client, "JETSTREAM_TLS_KEY": clientKey] }
    }

    /// Whether a host with `settings` delivers a record published after it reads the stream.
    static func delivers(_ scratch: Scratch, _ server: NatsServer, _ settings: [String: String], isolated: Bool = false, grants: [String] = []) throws -> Bool {
        let host = try NatsHost(
            "reader", scratch, server: server, settings: settings, plugins: try scratch.probe("probe", [.data]),
            options: isolated ? grants.flatMap { ["--set", "nats.sandbox.\($0)"] } : [], isolated: isolated)
        try host.waitUntilReading()
        try server.publish([natsRecord("secured")], to: "pushes.news")
        let ids = reportedIDs([host], count: 1)
        #expect(host.host.stop() == .status(0), "\(host.host.stderr)")
        return ids == ["secured"]
    }

    /// The log of a host with `settings` that must refuse its start (exit 1).
    static func refused(_ scratch: Scratch, _ server: NatsServer, _ settings: [String: String], name: String) throws -> String {
        let host = try NatsHost(name, scratch, server: server, settings: settings)
        #expect(host.host.waitForExit() == .status(1), "\(host.host.stderr)")
        return host.host.stderr
    }

    @Test(arguments: [false, true])
    func overTLSWithTheCAItReadsTheStream(isolated: Bool) throws {
        let scratch = try Scratch()
        let certificates = try Certificates(scratch)
        let server = try NatsServer(scratch, extra: certificates.serverBlock(verify: false), clientEnvironment: ["JETSTREAM_TLS_CA": certificates.ca])
        #expect(try Self.delivers(
            scratch, server, ["tls_ca": certificates.ca, "tls_hostname": "nats.test"], isolated: isolated, grants: ["read=" + certificates.folder]))
    }

    @Test func aServerItCannotTrustRefusesTheStartWithTheReason() throws {
        let scratch = try Scratch()
        let certificates = try Certificates(scratch)
        let server = try NatsServer(scratch, extra: certificates.serverBlock(verify: false))
        let otherCA = try Self.refused(scratch, server, ["tls_ca": certificates.otherCA], name: "other-ca")
        #expect(otherCA.contains("error nats: cannot connect to \(server.url): "), "\(otherCA)")
        #expect(otherCA.lowercased().contains("certificate"), "libnats's reason: \(otherCA)")
        let otherName = try Self.refused(scratch, server, ["tls_ca": certificates.ca, "tls_hostname": "elsewhere.test"], name: "other-name")
        #expect(otherName.contains("error nats: cannot connect to \(server.url): "), "\(otherName)")
        #expect(!otherName.contains("no NATS server answers"), "a refusal is not a server that is down")
    }

    @Test func mutualTLSTakesTheClientsCertificate() throws {
        let scratch = try Scratch()
        let certificates = try Certificates(scratch)
        let server = try NatsServer(scratch, extra: certificates.serverBlock(verify: true), clientEnvironment: certificates.clientEnvironment)
        let without = try Self.refused(scratch, server, ["tls_ca": certificates.ca], name: "no-cert")
        #expect(without.contains("error nats: cannot connect to \(server.url): "), "\(without)")
        #expect(try Self.delivers(scratch, server, ["tls_ca": certificates.ca, "tls_cert": certificates.client, "tls_key": certificates.clientKey]))
    }

    @Test func aUserWithAPasswordFromAFile() throws {
        let scratch = try Scratch()
        let users = """
            authorization {
              users = [
                {user: "pushhost", password: "s3cret pass"}
                {user: "tool", password: "toolpw"}
              ]
            }
            """
        let server = try NatsServer(scratch, extra: users, clientEnvironment: ["JETSTREAM_USER": "tool", "JETSTREAM_PASSWORD": "toolpw"])
        let password = try scratch.write("password", "s3cret pass\n")
        chmod(password, 0o600)
        #expect(try Self.delivers(scratch, server, ["user": "pushhost", "password_file": password]))

        let wrong = try scratch.write("wrong", "guess\n")
        chmod(wrong, 0o600)
        let refused = try Self.refused(scratch, server, ["user": "pushhost", "password_file": wrong], name: "wrong")
        #expect(refused.contains("error nats: cannot connect to \(server.url): "), "\(refused)")
        #expect(refused.lowercased().contains("authorization"), "\(refused)")
    }

    @Test func secretsOthersMayReadAndHalfSettingsAreRefused() throws {
        let scratch = try Scratch()
        let server = try NatsServer(scratch)
        let open = try scratch.write("open-password", "s3cret\n")
        chmod(open, 0o644)
        let key = try scratch.write("open.key", "not a key\n")
        chmod(key, 0o640)
        let link = scratch.file("linked-password")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: open)
        let empty = try scratch.write("empty-password", "\n")
        chmod(empty, 0o600)
        let cases: [([String: String], String)] = [
            (["user": "pushhost", "password_file": open],
             "error nats: setting password_file: \(open) holds secrets and its group or others may use it (mode 644); chmod 600 it"),
            (["tls_cert": key, "tls_key": key], "error nats: setting tls_key: \(key) holds secrets and its group or others may use it (mode 640); chmod 600 it"),
            (["credentials": open], "error nats: setting credentials: \(open) holds secrets and its group or others may use it (mode 644); chmod 600 it"),
            (["user": "pushhost", "password_file": link], "error nats: setting password_file: \(link) is not a regular file (a symbolic link is not followed)"),
            (["user": "pushhost", "password_file": empty],
             "error nats: setting password_file: \(empty) does not hold a password of 1 to 1024 bytes on its first line"),
            (["user": "pushhost"], "error nats: settings user and password_file: one without the other"),
            (["tls_cert": key], "error nats: settings tls_cert and tls_key: one without the other (mutual TLS takes both)"),
        ]
        for (index, (settings, line)) in cases.enumerated() {
            let log = try Self.refused(scratch, server, settings, name: "case\(index)")
            #expect(log.contains(line), "\(settings):\n\(log)")
            #expect(!log.contains("s3cret"), "the password is in the log")
        }
    }
}
