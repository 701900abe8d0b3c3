import Foundation
import Testing

/// `--metrics`: `pushhost_token_age_seconds` is there while a token is
/// stored, and only then: not before the first, not after `"token":null`
/// removes it, and at once in a run that starts with one kept from before.
@Suite struct MetricsTokenAgeTests {
    @Test func theAgeIsToldWhileATokenIsStored() throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, [])
        #expect(try host.scrape()["pushhost_token_age_seconds"] == nil)

        host.feed([#"{"pushhost":"token","token":"device-token-1"}"#])
        let stored = try eventually(timeout: .seconds(10)) {
            let metrics = try host.scrape()
            return metrics["pushhost_host_events_total", ["kind": "token", "status": "stored"]] == 1
        }
        #expect(stored, "\(host.stderr)")
        let age = try #require(try host.scrape()["pushhost_token_age_seconds"])
        #expect(age >= 0)

        host.feed([#"{"pushhost":"token","token":null}"#])
        let removed = try eventually(timeout: .seconds(10)) {
            try host.scrape()["pushhost_host_events_total", ["kind": "token", "status": "removed"]] == 1
        }
        #expect(removed, "\(host.stderr)")
        #expect(try host.scrape()["pushhost_token_age_seconds"] == nil)
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["stored", "removed"])
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }

    @Test func aTokenKeptFromTheLastRunIsToldAtOnce() throws {
        let scratch = try Scratch()
        let first = try scratch.run([], stdin: ndjson(#"{"pushhost":"token","token":"device-token-1"}"#))
        #expect(first.status == 0, "\(first.stderr)")
        let host = try MetricsHost(scratch, [])
        let metrics = try host.scrape()
        #expect(metrics["pushhost_token_age_seconds"] != nil, "\(metrics)")
        #expect(metrics.all("pushhost_host_events_total").values.allSatisfy { $0 == 0 })
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}
