import Atomics
import PushHostSystem

/// How long each plugin's handlers took, as a Prometheus histogram
/// (`pushhost_handler_duration_seconds{plugin,handler}`), kept in cells of
/// its own rather than in the registry's histograms: those take a lock and
/// touch every bucket on each observation, which costs more per message
/// than the whole budget of `--metrics`. Here the dispatch thread, the only
/// writer, adds to one bucket and the sum with plain relaxed stores, and a
/// scrape reads them from its own thread (each cell on its own is whole;
/// the buckets of one scrape may be a call apart). Durations are in ticks of
/// ``TickClock`` (the bounds made ticks at its rate), seconds once rendered.
@usableFromInline package final class HandlerDurations: @unchecked Sendable {
    /// The buckets' upper bounds, in nanoseconds: 1 µs to 30 s, in steps of 1, 2.5 and 5.
    package static let bounds: [UInt64] = [
        1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000, 100_000_000, 250_000_000, 500_000_000,
        1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000, 30_000_000_000,
    ]
    /// The same bounds in seconds, as the text writes them.
    private static let seconds = bounds.map { Double($0) / 1e9 }
    /// The handlers a plugin can have, by `PluginHandler.rawValue` (1 to `handlerKinds`).
    @usableFromInline static let handlerKinds = 11
    /// One series' cells: a count per bound, one over the last bound, and the sum in ticks.
    private static let stride = bounds.count + 2

    /// The plugins by number (a number no plugin has: no name), and the handlers each has.
    private let plugins: [(name: String, handlers: [PluginHandler])]
    private let cells: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    private let cellCount: Int
    /// How many series there are: `handlerKinds` for each plugin.
    private let seriesCount: Int
    /// The bounds in ticks.
    private let bounds: UnsafeMutableBufferPointer<UInt64>
    private let rate: TickClock.Rate
    /// By a duration's bit length (0 to 64): the first bucket that may hold it.
    private let firstBucket: UnsafeMutableBufferPointer<UInt8>

    /// The cells of `plugins`' handlers, whose durations are in ticks at `rate`.
    package init(plugins: [(name: String, handlers: [PluginHandler])], rate: TickClock.Rate) {
        self.plugins = plugins
        self.rate = rate
        seriesCount = plugins.count * Self.handlerKinds
        cellCount = max(1, seriesCount * Self.stride)
        cells = .allocate(capacity: cellCount)
        cells.initialize(repeating: .init(0), count: cellCount)
        bounds = .allocate(capacity: Self.bounds.count)
        let ticks = Self.bounds.map { UInt64(Double($0) * rate.perNanosecond) }
        _ = bounds.initialize(from: ticks)
        // A duration of bit length b is at least 2^(b-1): no bound below that holds it.
        firstBucket = .allocate(capacity: 65)
        for length in 0...64 {
            let least: UInt64 = length == 0 ? 0 : 1 << (length - 1)
            firstBucket[length] = UInt8(ticks.firstIndex { $0 >= least } ?? ticks.count)
        }
    }

    deinit {
        cells.deallocate()
        bounds.deallocate()
        firstBucket.deallocate()
    }

    /// The series of `handler` of plugin number `plugin`.
    @inline(__always)
    @inlinable static func series(plugin: Int32, handler: PluginHandler) -> Int {
        Int(plugin) &* handlerKinds &+ Int(handler.rawValue) &- 1
    }

    /// Sets each plugin's series to what `last` holds for the plugin of the
    /// same name, if any (a reload, on the dispatch thread, the cells' one writer).
    package func carry(from last: HandlerDurations) {
        for (number, plugin) in plugins.enumerated() where !plugin.name.isEmpty {
            guard let before = last.plugins.firstIndex(where: { $0.name == plugin.name }) else { continue }
            let count = Self.handlerKinds * Self.stride
            let from = last.cells + before * count, to = cells + number * count
            for offset in 0..<count {
                UnsafeAtomic<UInt64>(at: to + offset).store(UnsafeAtomic<UInt64>(at: from + offset).load(ordering: .relaxed), ordering: .relaxed)
            }
        }
    }

    /// What the dispatch thread writes through: the cells' addresses, and
    /// no reference to count (the `HandlerDurations` lives as long as the run's metrics).
    package var observer: Observer { Observer(cells: cells, seriesCount: seriesCount, bounds: bounds, firstBucket: firstBucket) }

    @usableFromInline package struct Observer {
        fileprivate let cells: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
        fileprivate let seriesCount: Int
        fileprivate let bounds: UnsafeMutableBufferPointer<UInt64>
        fileprivate let firstBucket: UnsafeMutableBufferPointer<UInt8>

        /// [dispatch thread] Notes that the call of `series` took `ticks`.
        @inline(__always)
        @usableFromInline func observe(series: Int, ticks: UInt64) {
            guard series >= 0, series < seriesCount else { return }
            let first = cells + series &* HandlerDurations.stride
            // From the first bucket its bit length allows: a step or two more at most.
            var bucket = Int(firstBucket[64 &- ticks.leadingZeroBitCount])
            while bucket < bounds.count && ticks > bounds[bucket] { bucket &+= 1 }
            CounterCells.add(1, at: first + bucket)
            CounterCells.add(ticks, at: first + HandlerDurations.stride - 1)
        }
    }

    /// [any thread] The histogram in the Prometheus text format: a series
    /// for each handler each plugin has, and for any other it was called on.
    package func render(into text: inout String) {
        let name = "pushhost_handler_duration_seconds"
        text += "# HELP \(name) How long each plugin handler call took on the dispatch thread (for an isolated plugin: until its worker took the call, or answered a data call).\n"
        text += "# TYPE \(name) histogram\n"
        for (number, plugin) in plugins.enumerated() where !plugin.name.isEmpty {
            for kind in 1...Int32(Self.handlerKinds) {
                guard let handler = PluginHandler(rawValue: kind) else { continue }
                let first = cells + (number * Self.handlerKinds + Int(kind) - 1) * Self.stride
                let counts = (0...Self.bounds.count).map { UnsafeAtomic<UInt64>(at: first + $0).load(ordering: .relaxed) }
                let sum = UnsafeAtomic<UInt64>(at: first + Self.stride - 1).load(ordering: .relaxed)
                let total = counts.reduce(0, &+)
                guard total > 0 || plugin.handlers.contains(handler) else { continue }
                PrometheusText.histogram(
                    name, labels: "plugin=\"\(plugin.name)\",handler=\"\(handler.name)\"", bounds: Self.seconds, counts: counts,
                    sum: Double(sum) / rate.perNanosecond / 1e9, into: &text)
            }
        }
    }
}
