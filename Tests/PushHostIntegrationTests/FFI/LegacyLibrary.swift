import Foundation
import Testing

/// The manifests the FFI tests write beside the legacy library
/// (Tests/Fixtures/plugins/legacy.c), a plain C library that knows nothing
/// of pushhost.h, as an ffi manifest binds it.
enum Legacy {
    /// `init`: `legacy_open(LOG, code, log)`.
    static func initCall(_ log: String, code: Int = 0) -> String {
        #"{"symbol": "legacy_open", "returns": "int32", "params": ["string", "int32", "log"], "args": [{"value": "\#(log)"}, \#(code), "log"]}"#
    }

    static let fini = #"{"symbol": "legacy_close"}"#

    /// The background handler of the contract, with `body` as its second argument.
    static func background(body: String = #""notification.body""#) -> String {
        #"{"role": "background", "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["notification.title", \#(body), {"path": "data.priority", "default": 3}]}"#
    }

    /// The data handler of the contract; `verdicts` is JSON, or nil for none.
    static func data(verdicts: String? = #"{"0": "continue", "1": "suppress", "default": "failed"}"#, count: String = #"{"path": "data.count", "default": 0}"#) -> String {
        let map = verdicts.map { #", "verdicts": \#($0)"# } ?? ""
        return #"{"role": "data", "symbol": "legacy_check", "returns": "int32", "params": ["string", "int64"], "args": ["id", \#(count)]\#(map)}"#
    }

    static let screen = #"{"role": "screen", "targets": ["alerts"], "symbol": "legacy_show", "params": ["json"], "args": ["message"]}"#
    static let token = #"{"role": "token", "symbol": "legacy_token", "params": ["string", "string"], "args": ["token", "previous"]}"#

    /// A whole manifest: `library` (JSON text of the value), `top` (more
    /// top-level members), init (unless `log` is nil), fini, and `handlers`.
    static func manifest(
        _ handlers: [String], log: String?, library: String = #""liblegacy.so""#, top: String = "", fini: Bool = true
    ) -> String {
        var members = [#""library": \#(library)"#]
        if !top.isEmpty { members.append(top) }
        if let log { members.append(#""init": \#(initCall(log))"#) }
        if fini { members.append(#""fini": \#(Self.fini)"#) }
        members.append(#""handlers": [\#n    \#(handlers.joined(separator: ",\n    "))\#n]"#)
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }
}

extension Scratch {
    /// The file the legacy library writes its calls to.
    var legacyLog: String { file("legacy.log") }

    /// Builds the legacy library as `library` (relative to the folder) and
    /// writes `text` as `name` beside it (relative too); returns the manifest's path.
    @discardableResult
    func ffi(_ text: String, name: String = "legacy.ffi.json", library: String = "liblegacy.so") throws -> String {
        try plugin(library, PluginSource.fixture("legacy"))
        return try write(name, text)
    }

    /// `ffi` with `Legacy.manifest(handlers, log: legacyLog)`: init opens
    /// `legacyLog`, which the manifest grants its walls when isolated.
    @discardableResult
    func ffi(handlers: [String]) throws -> String {
        if !FileManager.default.fileExists(atPath: legacyLog) { _ = FileManager.default.createFile(atPath: legacyLog, contents: nil) }
        return try ffi(Legacy.manifest(handlers, log: legacyLog, top: #""sandbox": {"write": ["\#(legacyLog)"]}"#))
    }

    /// The lines the legacy library wrote to `legacyLog`.
    var legacyCalls: [String] {
        read("legacy.log").split(separator: "\n").map(String.init)
    }

    /// `legacyCalls` without init's and fini's lines.
    var legacyHandlerCalls: [String] {
        legacyCalls.filter { !$0.hasPrefix("legacy_open ") && $0 != "legacy_close" }
    }
}

extension Command {
    /// The report lines (`--report -`) of one id, or nil.
    func reportLine(_ id: String) throws -> [String: Any]? {
        try report().first { $0["id"] as? String == id }
    }
}

/// JSON objects, one a line.
func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
    }
}
