import Foundation
import Testing

/// The delivered store is bounded by bytes as well as by messages
/// (`--store-mib`): large pushes keep its files under the bound, the oldest
/// dropped first, and an action still finds the newest message; one on a
/// message dropped for room is refused with the reason.
@Suite struct ActionStoreBoundTests {
    typealias Route = ActionRouteTests

    /// A message for target `a` with a body of `size` bytes.
    static func large(_ id: String, size: Int) -> String {
        #"{"message_id":"\#(id)","notification":{"title":"t","body":"\#(String(repeating: "x", count: size))","actions":[{"id":"open","title":"Open"}]},"data":{"rx_gcm_key_target":"a"}}"#
    }

    @Test func largePushesStayWithinTheBoundAndTheNewestIsFound() throws {
        let scratch = try Scratch()
        let plugins = try Route.app(scratch)
        // 120 messages of 48 KiB: about 5.6 MiB, in a store of 1 MiB; two runs, so the files are written twice.
        for (run, range) in [(1, 1...60), (2, 61...120)] {
            let input = range.map { Self.large("m\($0)", size: 48 << 10) }
            let result = try scratch.run(plugins + ["--store-mib", "1"], stdin: ndjson(input + (run == 2 ? [Route.action("m120", "open"), Route.action("m1", "open")] : [])))
            #expect(result.status == 0, "\(result.stderr)")
            let size = ["delivered.ndjson", "delivered.1.ndjson"].reduce(0) { total, name in
                total + ((try? FileManager.default.attributesOfItem(atPath: scratch.file("state/" + name))[.size] as? Int) ?? 0)
            }
            #expect(size > 0 && size <= 1 << 20, "run \(run): \(size) bytes on disk")
            if run == 2 {
                let report = try result.report()
                #expect(report.suffix(2).map { $0["status"] as? String } == ["retained", "rejected"], "found, and waiting for its screen; then forgotten: \(report.suffix(2))")
                #expect(Route.actionCalls(scratch) == ["bg m120 open NULL"])
            }
        }
    }
}
