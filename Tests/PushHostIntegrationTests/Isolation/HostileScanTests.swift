import Foundation
import Testing

/// A scan's worker runs the plugin's constructor before it answers, and the
/// constructor can write anything to the scan's channel (fd 3) first: garbage,
/// a length of 2 GiB, a flood, an answer of its own before the real one, or
/// an answer of its own and an exit. Each is refused with the line
/// `refused plugin FILE: sent a malformed answer while loading: WHAT`,
/// naming what was wrong, and the host goes on with the others.
@Suite struct HostileScanTests {
    struct Attack: Sendable, CustomTestStringConvertible {
        let name: String
        /// The scan plugin's defines (Tests/Fixtures/plugins/scan.c).
        let defines: [String]
        /// What the refusal says was wrong: all of it, or as `match` says.
        let wrong: String
        var match = Match.whole
        var testDescription: String { name }
    }

    enum Match: Sendable {
        case whole
        case start
        /// How many bytes follow the forged answer depends on the real one.
        case end
    }

    /// A whole answer as a real worker writes one, with `members` replacing its own.
    static func answer(_ members: [String: String] = [:]) -> String {
        let base = [
            "name": #""forged""#, "version": #""1.0.0""#, "description": #""""#, "abi_major": "1", "abi_minor": "0",
            "handlers": #"["on_background"]"#, "targets": "[]",
        ]
        let all = base.merging(members) { $1 }
        let order = ["name", "version", "description", "abi_major", "abi_minor", "handlers", "targets"]
        return "{" + (order + all.keys.filter { !order.contains($0) }.sorted()).compactMap { key in
            all[key].map { #""\#(key)":\#($0)"# }
        }.joined(separator: ",") + "}"
    }

    /// `json` as a C string literal; `<FF>` stands for a byte 0xFF.
    static func literal(_ json: String) -> String {
        "\"" + json.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "<FF>", with: "\\xff") + "\""
    }

    /// The constructor writes `json` as an answer, then ends the worker.
    static func only(_ json: String) -> [String] {
        ["FORGE_ANSWER " + literal(json), "FORGE_EXIT"]
    }

    static let attacks = [
        // "garb", read as a length.
        Attack(name: "garbage", defines: [#"FORGE_RAW "garbage before the answer""#],
               wrong: "an answer that says 1651663207 bytes, more than the 1048576 a scan may send"),
        Attack(name: "2 GiB", defines: ["FORGE_LENGTH 0x7fffffff", "FORGE_FILL 16"],
               wrong: "an answer that says 2147483647 bytes, more than the 1048576 a scan may send"),
        Attack(name: "flood", defines: ["FORGE_LENGTH 1048576", "FORGE_FILL 2000000"],
               wrong: "more than the 1048576 bytes a scan may send"),
        Attack(name: "forged answer first", defines: ["FORGE_ANSWER " + literal(answer())],
               wrong: " bytes after its answer, where it ends", match: .end),
        Attack(name: "cut short", defines: ["FORGE_LENGTH 100", "FORGE_FILL 10", "FORGE_EXIT"],
               wrong: "an answer cut short: 10 bytes where it says 100"),
        Attack(name: "not JSON", defines: only("not JSON at all"), wrong: "an answer that is not JSON: ", match: .start),
        Attack(name: "not UTF-8", defines: only(answer(["version": #""1.<FF>""#])), wrong: "an answer that is not JSON: invalid UTF-8", match: .start),
        Attack(name: "not an object", defines: only(#"["forged"]"#), wrong: "an answer that is an array, not an object"),
        Attack(name: "bad name", defines: only(answer(["name": #""Not A Name""#])), wrong: #"the name "Not A Name" is not made of [a-z0-9_-]"#),
        Attack(name: "NUL", defines: only(answer(["version": #""1\u0000.0""#])), wrong: "version that holds a NUL"),
        Attack(name: "unknown member", defines: only(answer(["create": "1"])), wrong: #"the unknown member "create""#),
        Attack(name: "member twice", defines: only(#"{"name":"a","name":"b"}"#), wrong: #"the member "name" twice"#),
        Attack(name: "missing member", defines: only(#"{"name":"forged"}"#), wrong: #"no member "abi_major""#),
        Attack(name: "unknown handler", defines: only(answer(["handlers": #"["on_everything"]"#])), wrong: #"the unknown handler "on_everything""#),
        Attack(name: "ABI", defines: only(answer(["abi_major": "2"])),
               wrong: "an ABI this host cannot serve: built for ABI 2.0, but this host speaks ABI", match: .start),
        Attack(name: "ABI not a number", defines: only(answer(["abi_minor": "-1"])), wrong: "abi_minor that is not a number of 32 bits"),
        Attack(name: "empty target", defines: only(answer(["handlers": #"["on_target"]"#, "targets": #"[""]"#])), wrong: "a target is empty"),
        Attack(name: "screen without targets", defines: only(answer(["handlers": #"["on_mismatch"]"#])),
               wrong: "a screen plugin (on_target or on_mismatch) must list its targets"),
        Attack(name: "targets of no screen", defines: only(answer(["targets": #"["alerts"]"#])), wrong: "targets for a plugin that is no screen"),
        Attack(name: "extensions not a list", defines: only(answer(["extensions": #""ph.source/1""#])),
               wrong: "extensions that is a string, not an array"),
        Attack(name: "unknown extension", defines: only(answer(["extensions": #"["ph.evil/1"]"#])),
               wrong: #"its descriptor's extensions: "ph.evil/1" is no extension this host knows (ph.interceptor/1, ph.source/1, ph.chain/1, ph.intake/1, ph.state/1, ph.metrics/1, ph.bus/1)"#),
        Attack(name: "extension twice", defines: only(answer(["extensions": #"["ph.state/1","ph.state/1"]"#])),
               wrong: "its descriptor's extensions: ph.state/1 is declared twice"),
        Attack(name: "too many extensions",
               defines: only(answer(["extensions": "[" + Array(repeating: #""ph.state/1""#, count: 17).joined(separator: ",") + "]"])),
               wrong: "more than 16 extensions"),
        Attack(name: "forged log line", defines: only(#"{"refused":"x\nerror pushhost: all is well"}"#),
               wrong: "a refusal that is empty or holds a control character"),
    ]

    @Test(arguments: attacks)
    func aMalformedScanIsRefusedAndTheHostGoesOn(_ attack: Attack) throws {
        let scratch = try Scratch()
        let plugin = try scratch.scanPlugin(attack.defines)
        let run = try scratch.runHost(
            ["--plugin", plugin] + scratch.worker([.background]) + ["--isolate", "all", "--skip-bad-plugins"], stdin: ScanTests.input)
        #expect(run.exit == .status(0), "\(run.stderr)")
        let lines = run.stderrLines.filter { $0.contains(plugin) }
        try #require(lines.count == 1, "\(run.stderr)")
        let start = "error pushhost: refused plugin \(plugin): sent a malformed answer while loading: "
        #expect(lines[0].hasPrefix(start), "\(lines[0])")
        let wrong = String(lines[0].dropFirst(start.count))
        switch attack.match {
        case .whole: #expect(wrong == attack.wrong)
        case .start: #expect(wrong.hasPrefix(attack.wrong), "\(wrong)")
        case .end: #expect(wrong.hasSuffix(attack.wrong) && Int(wrong.prefix { $0 != " " }) != nil, "\(wrong)")
        }
        #expect(!run.stderr.contains("all is well"), "\(run.stderr)")
        #expect(run.statuses == ["delivered", "delivered"], "\(run.stderr)")
        #expect(run.report.allSatisfy { $0["ui"] as? [String] == ["worker"] }, "\(run.report)")
    }
}
