import CTicks
#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import PushHostRecords
@testable import PushHostSystem

/// The handlers' durations: each lands in the first bucket whose bound holds
/// it, whatever its size, and the text counts them cumulatively.
@Suite struct HandlerDurationsTests {
    /// The `le` of the bucket a single observation of `ticks` (at one a nanosecond) lands in.
    static func bucket(of ticks: UInt64) -> String? {
        let durations = HandlerDurations(plugins: [("p", [.onData])], rate: .init(perNanosecond: 1))
        durations.observer.observe(series: HandlerDurations.series(plugin: 0, handler: .onData), ticks: ticks)
        var text = ""
        durations.render(into: &text)
        // The first bucket line whose cumulative count is 1.
        return text.split(separator: "\n").first { $0.hasPrefix("pushhost_handler_duration_seconds_bucket") && $0.hasSuffix(" 1") }
            .flatMap { $0.split(separator: "le=\"").last?.split(separator: "\"").first.map(String.init) }
    }

    @Test(arguments: [
        (UInt64(0), "1e-06"), (1, "1e-06"), (999, "1e-06"), (1_000, "1e-06"), (1_001, "2.5e-06"), (2_500, "2.5e-06"),
        (2_501, "5e-06"), (4_096, "5e-06"), (65_536, "0.0001"), (1_000_000, "0.001"), (1_000_001, "0.0025"),
        (29_999_999_999, "30.0"), (30_000_000_000, "30.0"), (30_000_000_001, "+Inf"), (UInt64.max, "+Inf"),
    ])
    func eachDurationLandsInTheFirstBucketThatHoldsIt(_ ticks: UInt64, _ bound: String) {
        #expect(Self.bucket(of: ticks) == bound)
    }

    @Test func everyBitLengthAgreesWithAPlainSearch() {
        for length in 0...64 {
            for value in [length == 0 ? 0 : UInt64(1) << (length - 1), length == 64 ? UInt64.max : (UInt64(1) << length) - 1] {
                let expected = HandlerDurations.bounds.firstIndex { $0 >= value }.map { "\(Double(HandlerDurations.bounds[$0]) / 1e9)" } ?? "+Inf"
                #expect(Self.bucket(of: value) == expected, "\(value)")
            }
        }
    }

    @Test func theTextHasASeriesPerHandlerWithCountAndSum() {
        let durations = HandlerDurations(plugins: [("a", [.onData, .onBackground]), ("b", [.onToken])], rate: .init(perNanosecond: 1))
        let writer = durations.observer
        writer.observe(series: HandlerDurations.series(plugin: 0, handler: .onData), ticks: 3_000)
        writer.observe(series: HandlerDurations.series(plugin: 0, handler: .onData), ticks: 2_000_000)
        // A handler the plugin's descriptor does not name, called anyway (an interceptor's turn): a series of its own.
        writer.observe(series: HandlerDurations.series(plugin: 1, handler: .intercept), ticks: 10)
        // Out of range: ignored, nothing written elsewhere.
        writer.observe(series: HandlerDurations.series(plugin: 2, handler: .onData), ticks: 10)
        writer.observe(series: -1, ticks: 10)
        var text = ""
        durations.render(into: &text)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_count{plugin="a",handler="on_data"} 2"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_sum{plugin="a",handler="on_data"} 0.002003"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_bucket{plugin="a",handler="on_data",le="5e-06"} 1"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_bucket{plugin="a",handler="on_data",le="0.0025"} 2"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_count{plugin="a",handler="on_background"} 0"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_count{plugin="b",handler="on_token"} 0"#))
        #expect(lines.contains(#"pushhost_handler_duration_seconds_count{plugin="b",handler="intercept"} 1"#))
        #expect(!text.contains(#"handler="on_target""#))
        #expect(text.components(separatedBy: "_count{").count - 1 == 4)
    }

    @Test func theTickClockKnowsItsRate() {
        let rate = TickClock.start()
        // A time-stamp counter runs at 0.1 to 10 GHz; CLOCK_MONOTONIC at one a nanosecond.
        #expect(rate.perNanosecond > 0.1 && rate.perNanosecond < 10, "\(rate.perNanosecond)")
        let ticks = pushhost_ticks(), nanoseconds = MonotonicClock.now()
        usleep(20_000)
        let measured = Double(pushhost_ticks() - ticks) / rate.perNanosecond
        let elapsed = Double(MonotonicClock.now() - nanoseconds)
        // The same stretch of time on both clocks, within a tenth.
        #expect(abs(measured - elapsed) < elapsed / 10, "\(measured) ns against \(elapsed) ns")
    }
}
