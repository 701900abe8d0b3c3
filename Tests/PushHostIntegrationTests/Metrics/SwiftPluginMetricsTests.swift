import Foundation
import Testing

/// The Swift SDK's metrics (`context.counter`): the `orders` sample counts
/// the messages it got by route, in the host and in a worker alike.
@Suite struct SwiftPluginMetricsTests {
    @Test(arguments: [false, true])
    func theOrdersSampleCountsByRoute(isolated: Bool) throws {
        let scratch = try Scratch()
        let host = try MetricsHost(scratch, ["--plugin", Paths.sample("orders")] + (isolated ? ["--isolate", "orders"] : []))
        host.feed([
            #"{"pushhost":"foreground","screens":["orders"]}"#,
            #"{"message_id":"o1","data":{"rx_gcm_key_target":"orders","title":"Order 1"}}"#,
            #"{"message_id":"o2","data":{"rx_gcm_key_target":"orders","title":"Order 2"}}"#,
            #"{"message_id":"x1","data":{"rx_gcm_key_target":"news"}}"#,
        ])
        let counted = try eventually(timeout: .seconds(15)) {
            let metrics = try host.scrape()
            return metrics["orders_messages_total", ["route": "target"]] == 2 && metrics["orders_messages_total", ["route": "mismatch"]] == 1
        }
        #expect(counted, "\((try? host.scrape().text) ?? "")\n\(host.stderr)")
        #expect(try host.scrape()["orders_actions_total"] == 0)
        // What the report says agrees: two messages to the target, one to the top screen as a mismatch.
        let routes = try scratch.reportLines().compactMap { $0["route"] as? String }
        #expect(routes.sorted() == ["mismatch", "target", "target"])
        #expect(host.process.stop() == .status(0), "\(host.stderr)")
    }
}
