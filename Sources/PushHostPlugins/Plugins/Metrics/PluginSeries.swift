import Atomics
import Logging

/// One series of a plugin's metric (`ph_metric`): a value (a counter's or
/// a gauge's), or a histogram's counts and sum, updated from any thread
/// without a lock (compare-and-swap on a double's bits, atomic adds of
/// counts), read by a scrape or, in a worker, by the flush that sends it to
/// the host.
package final class PluginSeries: @unchecked Sendable {
    package let declaration: PluginMetricDeclaration
    /// Its number among the series of its plugin (in a worker: what the host knows it by).
    package let id: UInt64
    /// A counter's or a gauge's value, a histogram's sum: a double's bits.
    private let value = ManagedAtomic<UInt64>(0)
    /// A histogram's counts: one per bound, and one above the last.
    private let counts: [ManagedAtomic<UInt64>]
    /// Whether a misuse was logged already (once a series).
    private let warned = ManagedAtomic<Bool>(false)
    /// A gauge whose worker ended: it has no value until the next worker sends one.
    private let stale = ManagedAtomic<Bool>(false)
    /// Its plugin's log.
    let logger: Logger

    init(_ declaration: PluginMetricDeclaration, id: UInt64, logger: Logger) {
        self.declaration = declaration
        self.id = id
        self.logger = logger
        counts = declaration.kind == .histogram ? (0...declaration.buckets.count).map { _ in ManagedAtomic<UInt64>(0) } : []
    }

    var kind: PluginMetricDeclaration.MetricKind { declaration.kind }

    /// The opaque handle a plugin holds (the series lives as long as the run).
    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer) -> PluginSeries {
        Unmanaged<PluginSeries>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    // MARK: Updates (any thread)

    /// `add`: a counter by `amount` (0 or more), a gauge by `amount`; false for anything else.
    func add(_ amount: Double) -> Bool {
        guard amount.isFinite, kind == .gauge || (kind == .counter && amount >= 0) else { return false }
        addToValue(amount)
        return true
    }

    /// `set`: a gauge to `amount`; false for anything else.
    func set(_ amount: Double) -> Bool {
        guard amount.isFinite, kind == .gauge else { return false }
        value.store(amount.bitPattern, ordering: .relaxed)
        return true
    }

    /// `observe`: one observation of a histogram; false for anything else.
    func observe(_ amount: Double) -> Bool {
        guard amount.isFinite, kind == .histogram else { return false }
        let bucket = declaration.buckets.firstIndex { amount <= $0 } ?? declaration.buckets.count
        counts[bucket].wrappingIncrement(ordering: .relaxed)
        addToValue(amount)
        return true
    }

    /// Logs a misuse (`what` the plugin called), the first time only.
    func misused(_ what: String, _ amount: Double) {
        guard !warned.exchange(true, ordering: .relaxed) else { return }
        let shown = amount.isNaN ? "NaN" : "\(amount)"
        let why = !amount.isFinite ? "\(shown) is no number it counts" : kind == .counter && what == "add" ? "a counter does not go down" : "it is a \(kind.word)"
        logger.warning("ph.metrics/1: \(what)(\(declaration.fullName), \(shown)) ignored: \(why) (logged once a series)")
    }

    private func addToValue(_ amount: Double) {
        var old = value.load(ordering: .relaxed)
        while true {
            let (exchanged, found) = value.compareExchange(
                expected: old, desired: (Double(bitPattern: old) + amount).bitPattern, ordering: .relaxed)
            if exchanged { return }
            old = found
        }
    }

    // MARK: Reading

    /// A counter's or a gauge's value; a histogram's sum.
    var current: Double { Double(bitPattern: value.load(ordering: .relaxed)) }

    /// A histogram's counts, per bucket (not cumulative), the last above every bound.
    var bucketCounts: [UInt64] { counts.map { $0.load(ordering: .relaxed) } }

    // MARK: What a worker sends

    /// Takes what a worker's series reached (`values`: a counter's or a
    /// gauge's value; a histogram's counts, then its sum) over what it had
    /// reached before (`last`, nil for nothing yet). False, taking nothing,
    /// when it cannot be so: a counter that went down, counts that fell,
    /// the wrong number of values, a value that is no number.
    package func take(_ values: [Double], over last: [Double]?) -> Bool {
        guard values.allSatisfy(\.isFinite) else { return false }
        switch kind {
        case .counter:
            guard values.count == 1 else { return false }
            let before = last?.first ?? 0
            guard values[0] >= before else { return false }
            addToValue(values[0] - before)
        case .gauge:
            guard values.count == 1 else { return false }
            value.store(values[0].bitPattern, ordering: .relaxed)
            stale.store(false, ordering: .relaxed)
        case .histogram:
            guard values.count == counts.count + 1 else { return false }
            let before = last ?? [Double](repeating: 0, count: values.count)
            for index in counts.indices {
                guard values[index] >= before[index], values[index] < 9e15, values[index] == values[index].rounded() else { return false }
            }
            for index in counts.indices { counts[index].wrappingIncrement(by: UInt64(values[index] - before[index]), ordering: .relaxed) }
            addToValue(values[counts.count] - before[counts.count])
        }
        return true
    }

    /// [host] The worker that fed it ended: a gauge has no value now (a
    /// counter's or a histogram's totals stay, and the next worker's add on).
    package func workerEnded() {
        if kind == .gauge { stale.store(true, ordering: .relaxed) }
    }

    /// Whether it has a value to serve: not a gauge whose worker ended.
    var isServed: Bool { !stale.load(ordering: .relaxed) }

    /// What a worker sends for it: the value, or the counts then the sum.
    package var reached: [Double] {
        kind == .histogram ? bucketCounts.map { Double($0) } + [current] : [current]
    }
}
