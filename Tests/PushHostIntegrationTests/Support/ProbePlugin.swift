import Foundation
import Testing

/// A role the probe plugin can play; only the handlers of the roles asked for
/// are filled in its descriptor (see Tests/Fixtures/plugins/roles.h).
enum ProbeRole: Sendable, CaseIterable {
    case data
    case background
    /// `on_target` and `on_mismatch`, with the probe's `targets`.
    case foreground
    case token
    /// `on_action` (ABI 1.1).
    case action
    /// `ph.interceptor/1` (ABI 1.1): `intercept` and `on_outcome`.
    case interceptor
}

extension PluginSource {
    /// The defines of roles.h for `roles` (`ROLE_DATA`, ...), in a fixed
    /// order, and for the screens `targets`.
    static func roleDefines(_ roles: Set<ProbeRole>, targets: [String]) -> [String] {
        var defines = ProbeRole.allCases.filter(roles.contains).map { "ROLE_" + "\($0)".uppercased() }
        if !targets.isEmpty { defines.append("TARGETS " + targets.map { "\"\($0)\"" }.joined(separator: ", ")) }
        return defines
    }

    /// The C source of the probe named `name` in `roles`: a configurable test
    /// plugin that writes a line for every call to the file at its `log`
    /// setting (Tests/Fixtures/plugins/probe.c says which lines, and which
    /// settings it reads).
    static func probe(name: String, roles: Set<ProbeRole>, targets: [String] = []) throws -> String {
        try fixture("probe", defines: [#"NAME "\#(name)""#] + roleDefines(roles, targets: targets))
    }
}

extension Scratch {
    /// `pushhost run` with its own state folder and the report on standard output.
    func run(_ arguments: [String], stdin: String, environment: [String: String]? = nil) throws -> Command {
        try Command.pushhost(["run", "--state", file("state"), "--report", "-"] + arguments, stdin: stdin, environment: environment)
    }

    /// `run` as above, with raw bytes on standard input.
    func run(_ arguments: [String], input: Data, environment: [String: String]? = nil) throws -> Command {
        try Command.pushhost(["run", "--state", file("state"), "--report", "-"] + arguments, input: input, environment: environment)
    }

    /// The log every probe of a test appends to by default.
    var probeLog: String { file("probe.log") }

    /// Builds the probe `name` (as `name.so`) and returns the `run` arguments
    /// that load it with `settings` (and `log`, unless given).
    func probe(
        _ name: String, _ roles: Set<ProbeRole>, targets: [String] = [], settings: [String: String] = [:]
    ) throws -> [String] {
        let file = try plugin(name + ".so", PluginSource.probe(name: name, roles: roles, targets: targets))
        return loading(file, as: name, writing(settings, to: probeLog))
    }

    /// The lines the probes wrote to `log` (default: `probeLog`).
    func probeLines(_ log: String? = nil) -> [ProbeLine] {
        let text = (try? String(contentsOfFile: log ?? probeLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { ProbeLine(String($0)) }
    }

    /// `probeLines` as `NAME EVENT ID` (or `NAME token NEW PREVIOUS`, `NAME destroy`), without destroy lines.
    func probeCalls(_ log: String? = nil) -> [String] {
        probeLines(log).filter { $0.event != "destroy" }.map { line in
            line.event == "token" ? line.fields.prefix(4).joined(separator: " ") : line.fields.prefix(3).joined(separator: " ")
        }
    }
}

/// One line of a probe's log.
struct ProbeLine: CustomStringConvertible {
    let text: String
    /// The first four space-separated fields.
    let fields: [String]
    /// Whatever follows the fourth field (without its leading space).
    let rest: String

    init(_ text: String) {
        self.text = text
        let parts = text.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        fields = Array(parts.prefix(4))
        rest = parts.count > 4 ? parts[4] : ""
    }

    var name: String { fields.first ?? "" }
    var event: String { fields.count > 1 ? fields[1] : "" }
    var id: String { fields.count > 2 ? fields[2] : "" }
    var target: String { fields.count > 3 ? fields[3] : "" }
    var description: String { text }

    /// The values of ` path=value` in the extras (with `get`), for `paths`
    /// given in the order of the `get` setting; "NULL" for a NULL answer.
    func values(_ paths: [String]) -> [String: String] {
        var result: [String: String] = [:]
        var tail = Substring(rest)
        for (index, path) in paths.enumerated() {
            guard tail.hasPrefix(path + "=") else { return result }
            tail = tail.dropFirst(path.count + 1)
            let end = index + 1 < paths.count ? tail.range(of: " \(paths[index + 1])=")?.lowerBound ?? tail.endIndex : tail.endIndex
            result[path] = String(tail[..<end])
            tail = tail[end...].dropFirst()
        }
        return result
    }

    /// The normalized message appended with `json=true`, parsed.
    func json() throws -> [String: Any] {
        let start = try #require(rest.firstIndex(of: "{"), "no JSON in: \(text)")
        let object = try JSONSerialization.jsonObject(with: Data(rest[start...].utf8))
        return try #require(object as? [String: Any])
    }
}

extension Command {
    /// The report (`--report -`) lines of standard output, each parsed.
    func report() throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not an object: \(line)")
        }
    }

    /// Standard error's lines.
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Runs the built `pushhost` with raw bytes on standard input (which a
    /// String cannot carry when they are not UTF-8).
    static func pushhost(_ arguments: [String], input: Data, environment: [String: String]? = nil) throws -> Command {
        try run(Paths.pushhost, arguments, input: input, environment: environment)
    }
}

/// NDJSON from records, one per line.
func ndjson(_ lines: String...) -> String {
    lines.joined(separator: "\n") + "\n"
}
