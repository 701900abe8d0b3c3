import CPushHost

/// One series of a metric of the plugin's own (`ph.metrics/1`), served with
/// the host's at `/metrics` as `PLUGIN_NAME` (the plugin's name, `-` as
/// `_`), whether the plugin runs in the host or in a worker.
///
/// Make them in ``Plugin/init(context:)`` with ``PluginContext/counter(_:help:labels:)``,
/// ``PluginContext/gauge(_:help:labels:)`` or
/// ``PluginContext/histogram(_:help:labels:buckets:)``; update them from any
/// task or thread.
public struct Metric: @unchecked Sendable {
    private let table: UnsafePointer<ph_metrics>
    private let series: OpaquePointer

    init(table: UnsafePointer<ph_metrics>, series: OpaquePointer) {
        self.table = table
        self.series = series
    }

    /// A counter: adds `value` (0 or more). A gauge: adds `value`.
    public func add(_ value: Double = 1) {
        table.pointee.add(series, value)
    }

    /// A gauge: sets it to `value`.
    public func set(_ value: Double) {
        table.pointee.set(series, value)
    }

    /// A histogram: counts `value` in its bucket and in its sum.
    public func observe(_ value: Double) {
        table.pointee.observe(series, value)
    }
}

extension PluginContext {
    /// A counter, which only goes up; `name` ends in `_total`. Nil, with the
    /// host's reason logged, when the host refuses it (the rules are in
    /// docs/plugins.md, metrics) or has no `ph.metrics/1`; only in `init(context:)`.
    public func counter(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> Metric? {
        metric(PH_METRIC_COUNTER, name, help, labels, buckets: nil)
    }

    /// A gauge, which goes up and down. Nil as for ``counter(_:help:labels:)``.
    public func gauge(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:]) -> Metric? {
        metric(PH_METRIC_GAUGE, name, help, labels, buckets: nil)
    }

    /// A histogram with these bucket bounds (ascending; nil for the host's
    /// own, 1 µs to 30 s, for seconds). Nil as for ``counter(_:help:labels:)``.
    public func histogram(_ name: String, help: String, labels: KeyValuePairs<String, String> = [:], buckets: [Double]? = nil) -> Metric? {
        metric(PH_METRIC_HISTOGRAM, name, help, labels, buckets: buckets)
    }

    private func metric(
        _ kind: ph_metric_kind, _ name: String, _ help: String, _ labels: KeyValuePairs<String, String>, buckets: [Double]?
    ) -> Metric? {
        guard let table = host.pointee.get_extension(host, PH_EXT_METRICS)?.assumingMemoryBound(to: ph_metrics.self),
              covers(table, \.observe) else { return nil }
        // Each label a C string of its own, for the length of the call.
        let strings = labels.flatMap { [$0.key, $0.value] }.map { text -> UnsafeMutablePointer<CChar> in
            let bytes = Array(text.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            copy.initialize(from: bytes, count: bytes.count)
            return copy
        }
        defer { strings.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer($0) } + [nil]
        let series = pointers.withUnsafeBufferPointer { labels in
            (buckets ?? []).withUnsafeBufferPointer { bounds in
                table.pointee.metric(host, kind, name, help, labels.baseAddress, buckets == nil ? nil : bounds.baseAddress, bounds.count)
            }
        }
        return series.map { Metric(table: table, series: $0) }
    }
}
