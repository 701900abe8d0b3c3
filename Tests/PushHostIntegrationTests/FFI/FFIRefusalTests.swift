import Foundation
import Testing

/// A manifest that cannot work is refused at load, with one line naming the
/// manifest and the reason: `pushhost plugins` exits 1 and prints it, `pushhost
/// run` exits 1 before reading input, and no function of the library is called.
@Suite struct FFIRefusalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let manifest: String
        /// Text that must follow `FILE: ` on the refusal line.
        let reason: String
        var testDescription: String { label }
    }

    static func one(_ handler: String, library: String = #""liblegacy.so""#) -> String {
        Legacy.manifest([handler], log: nil, library: library, fini: false)
    }

    static func alert(params: String = #"["string", "string", "int32"]"#, args: String) -> String {
        #"{"role": "background", "symbol": "legacy_alert", "returns": "int32", "params": \#(params), "args": \#(args)}"#
    }

    static let numbers = #"{"role": "background", "symbol": "legacy_numbers", "params": ["int8", "uint8", "int64", "double", "bool"], "args": "#

    static let cases: [Case] = [
        Case(label: "missing library", manifest: one(Legacy.background(), library: #""libnosuch-legacy.so""#),
             reason: "library libnosuch-legacy.so: not loadable: libnosuch-legacy.so: cannot open shared object file: No such file or directory"),
        Case(label: "missing symbol",
             manifest: one(Legacy.background().replacingOccurrences(of: "legacy_alert", with: "legacy_alertz")),
             reason: "handler background: no symbol legacy_alertz in liblegacy.so"),
        Case(label: "unknown param type", manifest: one(alert(params: #"["string", "string", "int"]"#, args: #"["id", "id", 1]"#)),
             reason: #"handler background: unknown type "int" (types: int8, int16, "#),
        Case(label: "unknown return type", manifest: one(Legacy.background().replacingOccurrences(of: #""returns": "int32""#, with: #""returns": "long""#)),
             reason: #"handler background: unknown return type "long" (returns: void, int8, int16, "#),
        Case(label: "string param bound to a number literal", manifest: one(alert(args: #"["id", {"value": 3}, 1]"#)),
             reason: "handler background, argument 2: "),
        Case(label: "a path outside the message", manifest: one(alert(args: #"["nope.x", "id", 1]"#)),
             reason: #"handler background, argument 1: "nope.x" is not a path"#),
        Case(label: "token outside a token handler", manifest: one(alert(args: #"["token", "id", 1]"#)),
             reason: #"handler background, argument 1: "token" is not a path"#),
        Case(label: "log on a string param", manifest: one(alert(args: #"["log", "id", 1]"#)),
             reason: "handler background, argument 1: "),
        Case(label: "message on a string param", manifest: one(alert(args: #"["message", "id", 1]"#)),
             reason: "handler background, argument 1: "),
        Case(label: "int32 literal 1.5", manifest: one(alert(args: #"["id", "id", 1.5]"#)),
             reason: "handler background, argument 3: the literal 1.5, which is not an integer"),
        Case(label: "int32 default \"x\"", manifest: one(alert(args: #"["id", "id", {"path": "data.p", "default": "x"}]"#)),
             reason: "handler background, argument 3: "),
        Case(label: "int8 literal 300", manifest: one(numbers + #"[300, 1, 1, 1, true]}"#),
             reason: "handler background, argument 1: the literal 300, which does not fit int8"),
        Case(label: "uint8 literal -1", manifest: one(numbers + #"[1, -1, 1, 1, true]}"#),
             reason: "handler background, argument 2: the literal -1, which does not fit uint8"),
        Case(label: "bool literal 1", manifest: one(numbers + #"[1, 1, 1, 1, 1]}"#),
             reason: "handler background, argument 5: "),
        Case(label: "fewer args than params", manifest: one(alert(args: #"["id", "id"]"#)),
             reason: "handler background: legacy_alert has 3 params but 2 args"),
        Case(label: "more args than params", manifest: one(alert(args: #"["id", "id", 1, 2]"#)),
             reason: "handler background: legacy_alert has 3 params but 4 args"),
        Case(label: "a data handler returning double",
             manifest: one(Legacy.data(verdicts: nil).replacingOccurrences(of: #""returns": "int32""#, with: #""returns": "double""#)),
             reason: "handler data: "),
    ]

    @Test(arguments: cases)
    func refusedWithTheReason(_ refusal: Case) throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(refusal.manifest)
        try Self.expectRefused(scratch, manifest, refusal.reason)
    }

    /// Reasons the contract does not spell out: the line names the manifest,
    /// and holds `word` (the implementation's wording).
    @Test(arguments: [
        ("unknown top-level key", #"{"library": "liblegacy.so", "colour": "blue", "handlers": [\#(Legacy.token)]}"#, #"unknown key "colour""#),
        ("unknown handler key", #"{"library": "liblegacy.so", "handlers": [\#(Legacy.token.dropLast()), "colour": 1}]}"#, #"unknown key "colour""#),
        ("unknown init key", #"{"library": "liblegacy.so", "init": {"symbol": "legacy_close", "colour": 1}, "handlers": [\#(Legacy.token)]}"#, #"init: unknown key "colour""#),
        ("screen without targets", #"{"library": "liblegacy.so", "handlers": [{"role": "screen", "symbol": "legacy_show", "params": ["json"], "args": ["message"]}]}"#, #"handler screen: a screen handler must list its "targets""#),
        ("screen with empty targets", #"{"library": "liblegacy.so", "handlers": [{"role": "screen", "targets": [], "symbol": "legacy_show", "params": ["json"], "args": ["message"]}]}"#, #"must list its "targets""#),
        ("two handlers with one role", Legacy.manifest([Legacy.background(), Legacy.background()], log: nil, fini: false), "two handlers have the role background"),
        ("unknown role", #"{"library": "liblegacy.so", "handlers": [{"role": "action", "symbol": "legacy_close"}]}"#,
         #"unknown role "action" (roles: data, background, screen, mismatch, token)"#),
        ("mismatch without a screen", #"{"library": "liblegacy.so", "handlers": [{"role": "mismatch", "symbol": "legacy_close"}]}"#,
         "handler mismatch: a mismatch handler needs a screen handler"),
        ("mismatch with targets", #"{"library": "liblegacy.so", "handlers": [\#(Legacy.screen), {"role": "mismatch", "targets": ["x"], "symbol": "legacy_close"}]}"#,
         #"handler mismatch: "targets" are for a screen handler"#),
        ("two mismatch handlers", #"{"library": "liblegacy.so", "handlers": [\#(Legacy.screen), {"role": "mismatch", "symbol": "legacy_close"}, {"role": "mismatch", "symbol": "legacy_close"}]}"#,
         "two handlers have the role mismatch"),
        ("a string literal with a NUL", one(alert(args: #"["id", {"value": "a\u0000b"}, 1]"#)),
         "handler background, argument 2: the literal holds a NUL byte, where a string would end"),
        ("int32 bound to a string path", one(alert(args: #"["id", "id", "notification.title"]"#)),
         "cannot take notification.title, which is always a string"),
        ("int32 bound to an object path", one(alert(args: #"["id", "id", "data"]"#)), "cannot take data, which is an object or an array"),
        ("a string return", #"{"library": "liblegacy.so", "handlers": [{"role": "background", "symbol": "legacy_alert", "returns": "string"}]}"#, #"unknown return type "string""#),
        ("no handlers", #"{"library": "liblegacy.so", "handlers": []}"#, #""handlers", a non-empty array"#),
        ("no library at all", #"{"handlers": [\#(Legacy.token)]}"#, "names no library"),
        ("init bound to a message path", #"{"library": "liblegacy.so", "init": {"symbol": "legacy_show", "params": ["string"], "args": ["id"]}, "handlers": [\#(Legacy.token)]}"#, "init, argument 1: "),
        ("not JSON", #"{"library": "liblegacy.so", "handlers": [}"#, "manifest"),
        ("not an object", #"["liblegacy.so"]"#, "must be an object"),
    ])
    func refusedNamingTheManifest(_ label: String, _ text: String, _ word: String) throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(text)
        let line = try Self.expectRefused(scratch, manifest, "")
        #expect(word.isEmpty || line.contains(word), "\(label): \(line)")
    }

    @Test func aBadNameIsRefusedLikeAPluginName() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(Legacy.manifest([Legacy.token], log: nil, fini: false), name: "Legacy.ffi.json")
        try Self.expectRefused(scratch, manifest, #"the name "Legacy" is not made of [a-z0-9_-]"#)
    }

    /// init that returns neither 0 nor true refuses the plugin when it is created (at run).
    @Test func initReturningFailureRefusesThePlugin() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(Legacy.manifest([Legacy.background()], log: nil, top: #""init": \#(Legacy.initCall(scratch.legacyLog, code: -1))"#, fini: false))
        let result = try scratch.run(["--ffi", manifest], stdin: ndjson(#"{"notification":{"title":"t"}}"#))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("legacy: legacy_open returned -1"), "\(result.stderr)")
        #expect(result.errorLines.contains { $0.contains("refused") && $0.contains(manifest) }, "\(result.stderr)")
        #expect(scratch.legacyHandlerCalls.isEmpty)
        #expect(scratch.legacyCalls == ["legacy_open path=\(scratch.legacyLog) code=-1 log=set"])
    }

    /// A manifest has no settings: a `--set` for it is a setup error, not silently dropped.
    @Test func setForAManifestIsASetupError() throws {
        let scratch = try Scratch()
        let manifest = try scratch.ffi(Legacy.manifest([Legacy.token], log: nil, fini: false))
        let result = try scratch.run(["--ffi", manifest, "--set", "legacy.path=/tmp/x"], stdin: "")
        #expect(result.status == 1)
        #expect(result.stderr.contains("--set legacy.path: legacy is an ffi manifest, which takes no settings"), "\(result.stderr)")
    }

    /// Refused by `plugins --ffi` and by `run --ffi`; returns the listing's refusal line.
    @discardableResult
    static func expectRefused(_ scratch: Scratch, _ manifest: String, _ reason: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let listing = try Command.pushhost(["plugins", "--ffi", manifest])
        #expect(listing.status == 1, sourceLocation: sourceLocation)
        let line = listing.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix("refused ") } ?? ""
        #expect(line.hasPrefix("refused \(manifest): \(reason)"), "\(listing.stdout)\(listing.stderr)", sourceLocation: sourceLocation)
        let run = try scratch.run(["--ffi", manifest], stdin: ndjson(#"{"notification":{"title":"t"}}"#))
        #expect(run.status == 1, sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(run.errorLines.contains { $0.contains("\(manifest): \(reason)") }, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(scratch.legacyCalls.isEmpty, sourceLocation: sourceLocation)
        return line
    }
}
