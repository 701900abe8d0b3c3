import Foundation
import Testing

/// The Web Push decryption of the `unifiedpush` plugin
/// (`transports/unifiedpush/webpush.c`, on libcrypto), run against RFC
/// 8291's own example and against what must fail, through
/// `Tests/Fixtures/unifiedpush/rfc8291.c`.
@Suite(.enabled(if: TransportBuild.canRun(libraries: ["libcrypto"]), "needs libcrypto's headers (Debian: libssl-dev)"))
struct WebPushVectorTests {
    @Test func rfc8291sExampleDecryptsAndAlteredBodiesDoNot() throws {
        let scratch = try Scratch()
        let transports = Paths.packageRoot.appendingPathComponent("transports/unifiedpush").path
        let flags = try Command.run("pkg-config", ["--cflags", "--libs", "libcrypto"]).stdout
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let build = try Command.run(
            "cc",
            ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-I", transports,
             Paths.fixtures.appendingPathComponent("unifiedpush/rfc8291.c").path, transports + "/webpush.c",
             "-o", scratch.file("rfc8291")] + flags)
        try #require(build.status == 0, "cc failed:\n\(build.rawStderr)")
        let run = try Command.run(scratch.file("rfc8291"), [])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == [
            "vector: When I grow up, I want to be a watermelon",
            "tampered: it does not decrypt with these keys (wrong keys, or altered)",
            "wrong auth: it does not decrypt with these keys (wrong keys, or altered)",
            "short: shorter than the aes128gcm header (21 bytes)",
            "generated: match 1 p256dh 87 auth 22",
            "mismatched: match 0",
        ])
    }
}

