import Foundation
import Testing

/// Messages past their time to live: each shape's lifetime, counted from
/// the record's arrival, keeps the message from every UI handler (status
/// `expired`, with the reason), the data stage still sees it unless
/// `--expired-data off`, and a message without a lifetime (or with one that
/// is no number of seconds) never expires. The clock is the test's own
/// only through times far in the past or the future, and through waits that
/// a slower machine only makes longer.
@Suite struct ExpiryTests {
    /// 2001-09-09T01:46:40Z and 2100-01-01T00:00:00Z, as Unix seconds.
    static let past = 1_000_000_000
    static let future = 4_102_444_800

    /// A shape's record past its lifetime, and one well within it.
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let platform: String?
        let expired: String
        let alive: String
        /// Whether the lifetime counts from the arrival (the data stage then
        /// takes over a second, so a time to live of 0 ran out).
        let relative: Bool
        let reason: String
        var testDescription: String { name }
    }

    static let shapes = [
        Shape(
            name: "GCM time_to_live", platform: nil,
            expired: #"{"message_id":"old","time_to_live":0,"data":{"title":"a"}}"#,
            alive: #"{"message_id":"new","time_to_live":86400,"data":{"title":"b"}}"#,
            relative: true, reason: "its time to live of 0 s ran out"),
        Shape(
            name: "FCM v1 android.ttl", platform: "android",
            expired: #"{"message":{"name":"old","data":{"title":"a"},"android":{"ttl":"0.5s"}}}"#,
            alive: #"{"message":{"name":"new","data":{"title":"b"},"android":{"ttl":"86400s"}}}"#,
            relative: true, reason: "its time to live of 0.5 s ran out"),
        Shape(
            name: "FCM v1 webpush TTL", platform: "webpush",
            expired: #"{"message":{"name":"old","data":{"title":"a"},"webpush":{"headers":{"TTL":"0"}}}}"#,
            alive: #"{"message":{"name":"new","data":{"title":"b"},"webpush":{"headers":{"TTL":"86400"}}}}"#,
            relative: true, reason: "its time to live of 0 s ran out"),
        Shape(
            name: "FCM v1 apns-expiration", platform: "apns",
            expired: #"{"message":{"name":"old","apns":{"headers":{"apns-expiration":"\#(past)"},"payload":{"aps":{"alert":"a"}}}}}"#,
            alive: #"{"message":{"name":"new","apns":{"headers":{"apns-expiration":"\#(future)"},"payload":{"aps":{"alert":"b"}}}}}"#,
            relative: false, reason: "it expired at 2001-09-09T01:46:40.000Z"),
        Shape(
            name: "APNs apns-expiration", platform: nil,
            expired: #"{"aps":{"alert":"a"},"apns-expiration":\#(past),"message_id":"old"}"#,
            alive: #"{"aps":{"alert":"b"},"apns-expiration":\#(future),"message_id":"new"}"#,
            relative: false, reason: "it expired at 2001-09-09T01:46:40.000Z"),
        Shape(
            name: "APNs apns-expiration 0 (at once)", platform: nil,
            expired: #"{"aps":{"alert":"a"},"apns-expiration":"0","message_id":"old"}"#,
            alive: #"{"aps":{"alert":"b"},"message_id":"new"}"#,
            relative: true, reason: "its time to live of 0 s ran out"),
        Shape(
            name: "ntfy expires", platform: nil,
            expired: #"{"id":"old","time":\#(past - 60),"expires":\#(past),"event":"message","topic":"t","message":"a"}"#,
            alive: #"{"id":"new","time":\#(past - 60),"expires":\#(future),"event":"message","topic":"t","message":"b"}"#,
            relative: false, reason: "it expired at 2001-09-09T01:46:40.000Z"),
    ]

    /// The data probe `d` (its verdict after 1.1 s when `waiting`) and the background probe `bg`.
    static func plugins(_ scratch: Scratch, waiting: Bool) throws -> [String] {
        try scratch.probe("d", [.data], settings: waiting ? ["verdict": "pending", "delay_ms": "1100"] : [:])
            + scratch.probe("bg", [.background])
    }

    @Test(arguments: shapes) func aMessagePastItsLifetimeReachesNoUIHandler(_ shape: Shape) throws {
        let scratch = try Scratch()
        let flags = shape.platform.map { ["--platform", $0] } ?? []
        let result = try scratch.run(try Self.plugins(scratch, waiting: shape.relative) + flags, stdin: ndjson(shape.expired, shape.alive))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 2, "\(result.stdout)")
        #expect(report.map { $0["status"] as? String } == ["expired", "delivered"], "\(report)")
        #expect(report[0]["route"] as? String == "none")
        #expect(report[0]["reason"] as? String == shape.reason, "\(report[0])")
        #expect(report[0]["error"] is NSNull, "\(report[0])")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("d data") }.count == 2, "the data stage sees both")
        #expect(scratch.probeCalls().filter { $0.hasPrefix("bg ") }.count == 1, "\(scratch.probeCalls())")
    }

    /// With `--expired-data off`, a message past its expiry when it arrives
    /// skips the data stage too; one that expires during its data stage
    /// has met it already.
    @Test func expiredDataOffSkipsTheDataStage() throws {
        let scratch = try Scratch()
        let shape = Self.shapes.first { $0.name == "ntfy expires" }!
        let result = try scratch.run(try Self.plugins(scratch, waiting: false) + ["--expired-data", "off"], stdin: ndjson(shape.expired, shape.alive))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["expired", "delivered"], "\(report)")
        #expect(report.first?["data"] as? [Any] == nil || (report.first?["data"] as? [Any])?.isEmpty == true, "\(report)")
        #expect(scratch.probeCalls() == ["d data new", "bg background new"])
    }

    /// Lifetimes that are no number of seconds (or, for android.ttl, no
    /// duration in seconds) state nothing: after the same wait, delivered.
    @Test func aLifetimeThatIsNoNumberOfSecondsNeverExpires() throws {
        let scratch = try Scratch()
        let records = [
            #"{"message_id":"negative","time_to_live":-5,"data":{}}"#,
            #"{"message_id":"word","time_to_live":"soon","data":{}}"#,
            #"{"message_id":"exponent","time_to_live":0e3,"data":{}}"#,
            #"{"message_id":"boolean","time_to_live":false,"data":{}}"#,
            #"{"message_id":"suffixed","time_to_live":"0s","data":{}}"#,
            #"{"message_id":"spaced","time_to_live":" 0","data":{}}"#,
            #"{"message_id":"huge","time_to_live":"99999999999999999999999","data":{}}"#,
            #"{"message_id":"none","data":{}}"#,
        ]
        let result = try scratch.run(try Self.plugins(scratch, waiting: true), stdin: records.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.count == records.count)
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" }, "\(report)")
        let android = try Scratch()
        let noSuffix = #"{"message":{"name":"bare","data":{},"android":{"ttl":"0"}}}"#
        let run = try android.run(try Self.plugins(android, waiting: true) + ["--platform", "android"], stdin: ndjson(noSuffix))
        #expect(try run.report().map { $0["status"] as? String } == ["delivered"], "\(run.stdout)")
    }

    /// A spool file's lifetime counts from its arrival (when it was last
    /// written): two hours ago is past a time to live of 60 s, not of a
    /// day; a file written now is within 60 s. The metrics count it.
    @Test func aSpoolFileCountsFromItsArrival() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        try spool.create()
        let twoHoursAgo = Date(timeIntervalSinceNow: -7200)
        try spool.drop("a-old", #"{"message_id":"old","time_to_live":60,"data":{}}"#)
        try spool.setModified("a-old", twoHoursAgo)
        try spool.drop("b-day", #"{"message_id":"day","time_to_live":86400,"data":{}}"#)
        try spool.setModified("b-day", twoHoursAgo)
        try spool.drop("c-new", #"{"message_id":"new","time_to_live":60,"data":{}}"#)
        let host = try MetricsHost(scratch, try scratch.probe("bg", [.background]))
        let done = eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 3 }
        try #require(done, "\(host.stderr)")
        let statuses = Dictionary(uniqueKeysWithValues: try scratch.reportLines().map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(statuses == ["old": "expired", "day": "delivered", "new": "delivered"])
        let metrics = try host.scrape()
        #expect(metrics["pushhost_records_total", ["source": "spool", "status": "expired"]] == 1, "\(metrics)")
        #expect(metrics["pushhost_records_total", ["source": "spool", "status": "delivered"]] == 2)
        #expect(host.process.stop() == .status(0))
        #expect(scratch.spool.names("cur").sorted() == ["a-old", "b-day", "c-new"], "an expired file is done with")
    }

    /// `pushhost check` holds expired lines as any other: recorded once,
    /// they match the next run's.
    @Test func pushhostCheckComparesExpiredLines() throws {
        let shape = Self.shapes.first { $0.name == "ntfy expires" }!
        let scratches = [try Scratch(), try Scratch()]
        // Their folders go with them: a release build may end them after their last use above.
        defer { withExtendedLifetime(scratches) {} }
        let reports = try scratches.map { scratch in
            let result = try scratch.run(try Self.plugins(scratch, waiting: false), stdin: ndjson(shape.expired, shape.alive))
            return try scratch.write("report.ndjson", result.stdout)
        }
        let expected = scratches[0].file("expected.ndjson")
        let update = try Command.pushhost(["check", reports[0], expected, "--update"])
        #expect(update.status == 0, "\(update.stderr)")
        let written = try String(contentsOfFile: expected, encoding: .utf8)
        #expect(written.contains(#""status":"expired""#) && written.contains(#""reason":"it expired at 2001-09-09T01:46:40.000Z""#), "\(written)")
        let check = try Command.pushhost(["check", reports[1], expected])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    /// A source plugin's word on when its transport got a record
    /// (`submit_record_at`), in the host and in a worker: an hour ago is
    /// past a time to live of 60 s; a time still to come is taken as now,
    /// so a time to live of 0 runs out in the data stage's 1.1 s.
    @Test(arguments: [false, true]) func aPluginSaysWhenItsRecordArrived(isolated: Bool) throws {
        let scratch = try Scratch()
        let source = try scratch.plugin("arrivals.so", PluginSource.fixture("arrivals"))
        let host = try scratch.startHost(
            ["--plugin", source] + Self.plugins(scratch, waiting: true) + (isolated ? ["--isolate", "all"] : []))
        let done = eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 3 }
        try #require(done, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
        let statuses = try scratch.reportLines().map { "\($0["id"] as? String ?? "") \($0["status"] as? String ?? "")" }
        #expect(statuses == ["hour-old expired", "future expired", "now delivered"], "\(host.stderr)")
    }
}
