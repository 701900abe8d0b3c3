import Logging
import Testing

@testable import PushHostCore
@testable import PushHostIsolation
@testable import PushHostPlugins
@testable import PushHostJSON
@testable import PushHostSystem

/// `ph.metrics/1` without a plugin: the rules, the series' updates, and what
/// a worker may send for them, read as a hostile worker would write it.
@Suite struct PluginMetricsRulesTests {
    static func declare(_ kind: Int32, _ name: String, labels: [String] = [], buckets: [Double]? = nil) -> PluginMetricDeclaration? {
        try? PluginMetricDeclaration.check(plugin: "my-plugin", kind: kind, name: name, help: "Help.", labels: labels, buckets: buckets).get()
    }

    @Test func namesArePrefixedByThePlugin() throws {
        let declaration = try #require(Self.declare(0, "sent_total"))
        #expect(declaration.fullName == "my_plugin_sent_total")
        #expect(Self.declare(2, "wait_seconds")?.buckets == PluginMetricDeclaration.defaultBuckets)
    }

    @Test(arguments: [
        (Int32(0), "Sent_total"), (Int32(0), "sent"), (Int32(1), "level_total"), (Int32(2), "wait_bucket"), (Int32(1), "x_count"),
        (Int32(0), "9lives_total"), (Int32(0), "a-b_total"), (Int32(1), ""), (Int32(1), String(repeating: "a", count: 101)),
        (Int32(3), "odd"), (Int32(-1), "odd"),
    ] as [(Int32, String)])
    func namesThatBreakTheRulesAreRefused(_ kind: Int32, _ name: String) {
        #expect(Self.declare(kind, name) == nil)
    }

    @Test func labelsAndBucketsThatBreakTheRulesAreRefused() {
        #expect(Self.declare(1, "g", labels: ["only_a_name"]) == nil)
        #expect(Self.declare(1, "g", labels: ["__reserved", "v"]) == nil)
        #expect(Self.declare(1, "g", labels: ["a", "1", "a", "2"]) == nil)
        #expect(Self.declare(2, "h", labels: ["le", "1"]) == nil)
        #expect(Self.declare(1, "g", labels: ["a", String(repeating: "v", count: 129)]) == nil)
        #expect(Self.declare(1, "g", labels: (0..<9).flatMap { ["l\($0)", "v"] }) == nil)
        #expect(Self.declare(1, "g", buckets: [1]) == nil)
        #expect(Self.declare(2, "h", buckets: [1, 1]) == nil)
        #expect(Self.declare(2, "h", buckets: [.nan]) == nil)
        #expect(Self.declare(2, "h", buckets: Array(stride(from: 1.0, through: 65, by: 1))) == nil)
        #expect(Self.declare(1, "g", labels: ["a", "any \"value\"\n\\"]) != nil)
        #expect((try? PluginMetricDeclaration.check(plugin: "p", kind: 1, name: "g", help: "two\nlines", labels: [], buckets: nil).get()) == nil)
    }

    @Test func theHostsNamesAreNotAPlugins() {
        #expect(throws: PluginMetricDeclaration.MetricRefusal.self) {
            try PluginMetricDeclaration.check(plugin: "pushhost", kind: 0, name: "records_total", help: "h", labels: [], buckets: nil).get()
        }
    }
}

@Suite struct PluginSeriesTests {
    static func series(_ kind: Int32, _ name: String, buckets: [Double]? = nil) -> PluginSeries {
        let declaration = try! PluginMetricDeclaration.check(plugin: "p", kind: kind, name: name, help: "h", labels: [], buckets: buckets).get()
        return PluginSeries(declaration, id: 1, logger: Logger(label: "p"))
    }

    @Test func eachKindTakesItsOwnUpdates() {
        let counter = Self.series(0, "c_total"), gauge = Self.series(1, "g"), histogram = Self.series(2, "h", buckets: [1, 10])
        #expect(counter.add(2.5) && !counter.add(-1) && !counter.set(3) && !counter.observe(1) && !counter.add(.infinity))
        #expect(counter.current == 2.5)
        #expect(gauge.set(7) && gauge.add(-10) && !gauge.observe(1) && !gauge.set(.nan))
        #expect(gauge.current == -3)
        #expect(histogram.observe(0.5) && histogram.observe(1) && histogram.observe(5) && histogram.observe(11) && !histogram.add(1))
        #expect(histogram.bucketCounts == [2, 1, 1])
        #expect(histogram.current == 17.5)
        #expect(histogram.reached == [2, 1, 1, 17.5])
    }

    @Test func aWorkersValuesAreTakenAsWhatTheyGained() {
        let counter = Self.series(0, "c_total")
        #expect(counter.take([3], over: nil))
        #expect(counter.take([5], over: [3]))
        #expect(counter.current == 5)
        // A new worker counts from nothing again: what it reached adds on.
        #expect(counter.take([2], over: nil))
        #expect(counter.current == 7)
        // A counter that goes down, the wrong number of values, or no number: refused, nothing taken.
        #expect(!counter.take([1], over: [2]))
        #expect(!counter.take([1, 2], over: nil))
        #expect(!counter.take([.nan], over: nil))
        #expect(counter.current == 7)

        let histogram = Self.series(2, "h", buckets: [1, 10])
        #expect(histogram.take([1, 0, 2, 30], over: nil))
        #expect(histogram.take([1, 1, 2, 35], over: [1, 0, 2, 30]))
        #expect(histogram.bucketCounts == [1, 1, 2])
        #expect(histogram.current == 35)
        #expect(!histogram.take([0, 1, 2, 35], over: [1, 1, 2, 35]))
        #expect(!histogram.take([1.5, 1, 2, 35], over: nil))
        #expect(!histogram.take([1, 1, 2], over: nil))

        let gauge = Self.series(1, "g")
        #expect(gauge.take([-4], over: [9]))
        #expect(gauge.current == -4)
    }
}

/// What a worker sends of its plugin's metrics, as the host's relay takes it:
/// each frame built as a worker would, or as a hostile one would.
@Suite struct MetricsReceiverTests {
    /// `body` with the frame `append` writes, read back as the relay reads it.
    static func frame<R>(_ append: (inout ByteBuffer) -> Void, _ body: (WorkerFrame.Frame) -> R) -> R {
        var buffer = ByteBuffer(capacity: 256)
        append(&buffer)
        return buffer.bytes.withUnsafeBytes { bytes in
            guard case .frame(let frame, _) = WorkerFrame.read(bytes) else { fatalError("not a frame") }
            return body(frame)
        }
    }

    static func declaration(_ kind: Int32, _ name: String, id: UInt64, plugin: String = "p") -> (inout ByteBuffer) -> Void {
        let declared = try! PluginMetricDeclaration.check(plugin: plugin, kind: kind, name: name, help: "h", labels: [], buckets: nil).get()
        let series = PluginSeries(declared, id: id, logger: Logger(label: plugin))
        return { MetricFrames.appendDeclaration(of: series, to: &$0) }
    }

    static func values(_ entries: [(UInt64, [Double])]) -> (inout ByteBuffer) -> Void {
        { MetricFrames.appendValues(entries.map { (number: $0.0, values: $0.1) }, to: &$0) }
    }

    @Test func declaredSeriesTakeTheirValues() {
        let metrics = PluginMetrics()
        let receiver = MetricsReceiver(plugin: "p", metrics: metrics)
        #expect(Self.frame(Self.declaration(0, "sent_total", id: 1), receiver.take) == nil)
        #expect(Self.frame(Self.declaration(2, "wait_seconds", id: 2), receiver.take) == nil)
        #expect(Self.frame(Self.values([(1, [4])]), receiver.take) == nil)
        #expect(Self.frame(Self.values([(1, [6]), (2, [0] + [Double](repeating: 0, count: 22) + [1, 40])]), receiver.take) == nil)
        let served = metrics.all
        #expect(served.map(\.declaration.fullName) == ["p_sent_total", "p_wait_seconds"])
        #expect(served[0].current == 6)
        #expect(served[1].bucketCounts.last == 1 && served[1].current == 40)
    }

    @Test func whatAHostileWorkerSendsEndsIt() {
        let receiver = MetricsReceiver(plugin: "p", metrics: PluginMetrics())
        #expect(Self.frame(Self.declaration(0, "sent_total", id: 1), receiver.take) == nil)
        #expect(Self.frame(Self.values([(1, [4])]), receiver.take) == nil)
        // A counter that goes down, a series never declared, the same series twice.
        #expect(Self.frame(Self.values([(1, [3])]), receiver.take)?.contains("do not fit it") == true)
        #expect(Self.frame(Self.values([(9, [1])]), receiver.take)?.contains("never declared") == true)
        #expect(Self.frame(Self.declaration(0, "sent_total", id: 1), receiver.take)?.contains("a second metric frame") == true)
        // Values whose field is cut short, and a declaration with more label fields than it carries.
        let short = Self.frame({ buffer in
            WorkerFrame.append(.metricValues, to: &buffer) { payload in
                [UInt8](repeating: 1, count: 12).withUnsafeBytes { WorkerFrame.appendField($0, to: &payload) }
            }
        }, receiver.take)
        #expect(short == "a malformed metric values frame")
        let missing = Self.frame({ buffer in
            WorkerFrame.append(.metric, handler: 4, call: 5, to: &buffer) { WorkerFrame.appendField("x_total", to: &$0) }
        }, receiver.take)
        #expect(missing == "a malformed metric frame")
    }

    @Test func aDeclarationTheRulesRefuseIsDroppedWithItsValues() {
        let metrics = PluginMetrics()
        let receiver = MetricsReceiver(plugin: "p", metrics: metrics)
        // A worker that claims a counter without _total: checked again here, refused, its values dropped.
        let forged = Self.frame({ buffer in
            WorkerFrame.append(.metric, handler: 0, call: 1, number: 0, to: &buffer) {
                WorkerFrame.appendField("sent", to: &$0)
                WorkerFrame.appendField("h", to: &$0)
                WorkerFrame.appendField(UnsafeRawBufferPointer(start: nil, count: 0), to: &$0)
            }
        }, receiver.take)
        #expect(forged == nil)
        #expect(Self.frame(Self.values([(1, [4])]), receiver.take) == nil)
        #expect(metrics.all.isEmpty)
    }
}
