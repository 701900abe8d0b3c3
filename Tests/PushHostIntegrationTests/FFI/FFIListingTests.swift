import Foundation
import Testing

/// `pushhost plugins` lists an ffi manifest as a plugin of ABI "ffi": its
/// library, and each function's C signature with the paths or literals bound
/// to its parameters, the data verdicts, init and fini; without calling init.
@Suite struct FFIListingTests {
    /// The contract's own example, with init opening `log`.
    static func example(log: String) -> String {
        Legacy.manifest([Legacy.data(), Legacy.background(), Legacy.screen, Legacy.token], log: log,
                        top: #""version": "2.1.0", "description": "The alert library of the old console.""#)
    }

    @Test func textListingShowsEachSignature() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(Self.example(log: scratch.legacyLog))
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        #expect(listing.stdout.split(separator: "\n").map(String.init) == [
            "legacy 2.1.0 (ffi) \(manifest)",
            "  roles: data, background, screen, token; targets: alerts",
            "  isolated: no",
            "  The alert library of the old console.",
            "  library: \(scratch.file("liblegacy.so"))",
            #"  init: int32_t legacy_open("\#(scratch.legacyLog)", 0, log)"#,
            "  data: int32_t legacy_check(const char *id, int64_t data.count = 0) -> 0 continue, 1 suppress, else failed",
            "  background: int32_t legacy_alert(const char *notification.title, const char *notification.body, int32_t data.priority = 3)",
            "  screen: void legacy_show(const char *message)",
            "  token: void legacy_token(const char *token, const char *previous)",
            "  fini: void legacy_close(void)",
        ], "\(listing.stdout)")
        // Listing creates nothing: init was not called.
        #expect(scratch.legacyCalls.isEmpty, "\(scratch.legacyCalls)")
    }

    @Test func jsonListingHasTheABIAndTheSignatures() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(Self.example(log: scratch.legacyLog))
        let listing = try Command.pushhost(["plugins", "--json", "--ffi", manifest])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        let entries = try jsonLines(listing.stdout)
        try #require(entries.count == 1, "\(listing.stdout)")
        let entry = entries[0]
        #expect(entry["abi"] as? String == "ffi")
        #expect(entry["name"] as? String == "legacy")
        #expect(entry["version"] as? String == "2.1.0")
        #expect(entry["file"] as? String == manifest)
        #expect(entry["libraries"] as? [String] == [scratch.file("liblegacy.so")])
        #expect(entry["roles"] as? [String] == ["data", "background", "screen", "token"])
        #expect(entry["targets"] as? [String] == ["alerts"])
        let functions = try #require(entry["functions"] as? [[String: Any]], "\(entry)")
        #expect(functions.map { $0["role"] as? String } == ["init", "data", "background", "screen", "token", "fini"])
        let signatures = functions.map { $0["signature"] as? String ?? "" }
        #expect(signatures.count == 6)
        #expect(signatures.first == #"int32_t legacy_open("\#(scratch.legacyLog)", 0, log)"#)
        #expect(signatures.dropFirst().first?.hasPrefix("int32_t legacy_check(const char *id, int64_t data.count = 0)") == true, "\(signatures)")
        #expect(signatures.dropFirst(2).first
                == "int32_t legacy_alert(const char *notification.title, const char *notification.body, int32_t data.priority = 3)")
        #expect(signatures.last == "void legacy_close(void)")
    }

    /// Other types in the signatures: bytes as pointer and length; number and
    /// bool literals shown as their values, as init's literals are.
    @Test func signaturesOfTheOtherTypes() throws {
        let scratch = try Scratch()
        let numbers = #"{"role": "background", "symbol": "legacy_numbers", "params": ["int8", "uint8", "int64", "double", "bool"], "args": ["data.a", 200, {"path": "data.c", "default": -1}, 0.5, true]}"#
        let bytes = #"{"role": "data", "symbol": "legacy_bytes", "params": ["bytes"], "args": ["data.blob"]}"#
        let manifest = try scratch.ffi(Legacy.manifest([numbers, bytes], log: nil, fini: false))
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        let lines = listing.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  background: void legacy_numbers(int8_t data.a, 200, int64_t data.c = -1, 0.5, true)"),
                "\(listing.stdout)")
        let data = try #require(lines.first { $0.hasPrefix("  data: ") }, "\(listing.stdout)")
        #expect(data.hasPrefix("  data: void legacy_bytes(const void *data.blob, size_t"), "\(data)")
    }

    /// A manifest beside plugins in `--plugins DIR` is listed in name order
    /// with them, and a refused one is listed as refused while the others are still listed.
    @Test func refusedManifestIsListedBesideGoodOnes() throws {
        let scratch = try Scratch()
        let good = try scratch.ffi(Legacy.manifest([Legacy.token], log: nil, library: #""lib/liblegacy.so""#, fini: false),
                                   name: "b-good.ffi.json", library: "lib/liblegacy.so")
        let bad = try scratch.write("a-bad.ffi.json", #"{"library": "lib/liblegacy.so", "handlers": [{"role": "token", "symbol": "nosuch"}]}"#)
        let listing = try Command.pushhost(["plugins", "--plugins", scratch.path])
        #expect(listing.status == 1)
        let lines = listing.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("refused \(bad): ") == true, "\(listing.stdout)")
        #expect(lines.first?.hasSuffix("no symbol nosuch in lib/liblegacy.so") == true, "\(listing.stdout)")
        // No version: one space between the name and the kind.
        #expect(lines.contains("b-good (ffi) \(good)"), "\(listing.stdout)")
    }

    /// A mismatch handler is listed as a function of its own, after the
    /// screen's; the plugin's role is still screen.
    @Test func mismatchHandlerIsListed() throws {
        let scratch = try Scratch()
        let mismatch = #"{"role": "mismatch", "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["id", "target", 0]}"#
        let manifest = try scratch.ffi(Legacy.manifest([Legacy.screen, mismatch], log: nil, fini: false))
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        #expect(listing.stdout.split(separator: "\n").map(String.init) == [
            "legacy (ffi) \(manifest)",
            "  roles: screen; targets: alerts",
            "  isolated: no",
            "  library: \(scratch.file("liblegacy.so"))",
            "  screen: void legacy_show(const char *message)",
            "  mismatch: int32_t legacy_alert(const char *id, const char *target, 0)",
        ], "\(listing.stdout)")
        let json = try jsonLines(try Command.pushhost(["plugins", "--json", "--ffi", manifest]).stdout)
        let functions = try #require(json.first?["functions"] as? [[String: Any]], "\(json)")
        #expect(functions.map { $0["role"] as? String } == ["screen", "mismatch"])
        #expect(json.first?["roles"] as? [String] == ["screen"])
    }

    /// String literals are shown as JSON strings, escapes and all: a bytes
    /// literal with a NUL in it shows whole.
    @Test func stringLiteralsAreShownAsJSON() throws {
        let scratch = try Scratch()
        let bytes = #"{"role": "data", "symbol": "legacy_bytes", "params": ["bytes"], "args": [{"value": "a\"b\u0000c"}]}"#
        let manifest = try scratch.ffi(Legacy.manifest([bytes], log: nil, fini: false))
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 0, "\(listing.stdout)\(listing.stderr)")
        #expect(listing.stdout.contains(#"  data: void legacy_bytes("a\"b\u0000c")"#), "\(listing.stdout)")
    }
}
