import Foundation
import Testing

/// Functions that take nothing from the message: libc's `getpid`, with no
/// parameters, and `abs(-5)` and `puts("...")`, with literals only. Every
/// role calls them on every message. The host runs once as it is, and once
/// with glibc's allocations filled with a byte that is not zero (and its
/// per-thread cache off, which would hand back memory unfilled): memory the
/// host reads before writing it then breaks every run, not one in fifteen.
@Suite struct FFINoArgumentTests {
    static let pid = #"{"library":"libc.so.6","handlers":[{"role":"background","symbol":"getpid","returns":"int32"}]}"#

    static let literals = #"""
        {"library": "libc.so.6",
         "handlers": [
           {"role": "data", "symbol": "abs", "returns": "int32", "params": ["int32"], "args": [-5], "verdicts": {"5": "continue"}},
           {"role": "background", "symbol": "puts", "returns": "int32", "params": ["string"], "args": [{"value": "a literal line"}]},
           {"role": "screen", "targets": ["alerts"], "symbol": "getpid", "returns": "int32"},
           {"role": "token", "symbol": "getpid", "returns": "int32"}
         ]}
        """#

    static let filled = ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=1"]

    @Test(arguments: [nil, filled])
    func noParametersAndLiteralsOnly(_ environment: [String: String]?) throws {
        let scratch = try Scratch()
        let pid = try scratch.write("pid.ffi.json", Self.pid)
        let literals = try scratch.write("literals.ffi.json", Self.literals)
        let report = scratch.file("report.ndjson")
        let result = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--report", report, "--ffi", literals, "--ffi", pid],
            stdin: ndjson(
                #"{"message_id":"m","notification":{"title":"x"}}"#,
                #"{"pushhost":"token","token":"T1"}"#,
                #"{"message_id":"m2","data":{"rx_gcm_key_target":"alerts"}}"#,
                #"{"pushhost":"foreground","screens":["literals"]}"#,
                #"{"message_id":"m3","data":{"rx_gcm_key_target":"alerts"}}"#),
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        // puts ran for m and m2 (background), not for m3 (the screen's).
        #expect(result.stdout == "a literal line\na literal line\n")
        let lines = try jsonLines(scratch.read("report.ndjson"))
        #expect(lines.map { ($0["status"] as? String) ?? "" } == ["delivered", "stored", "delivered", "applied", "delivered"])
        let messages = lines.filter { $0["id"] != nil }
        #expect(messages.map { $0["route"] as? String } == ["background", "background", "target"])
        #expect(messages.map { $0["ui"] as? [String] } == [["literals", "pid"], ["literals", "pid"], ["literals"]])
        #expect(messages.map { $0["data"] as? [[String: String]] } == Array(repeating: [["plugin": "literals", "verdict": "continue"]], count: 3))
    }
}
