#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// `ph.metrics/1`, the table `get_extension` hands a plugin: what it
/// declares is read with bounds (no string past its limit is read on), checked
/// (``PluginMetricDeclaration``) and kept in its context's ``PluginMetrics``.
enum PluginMetricsTable {
    nonisolated(unsafe) static let table: UnsafeMutablePointer<ph_metrics> = {
        let table = UnsafeMutablePointer<ph_metrics>.allocate(capacity: 1)
        table.initialize(to: ph_metrics(
            struct_size: UInt32(MemoryLayout<ph_metrics>.size),
            metric: { host, kind, name, help, labels, buckets, count in
                declare(PluginContext.of(host), kind, name, help, labels, buckets, count)
            },
            add: { metric, amount in
                let series = PluginSeries.from(metric)
                if !series.add(amount) { series.misused("add", amount) }
            },
            set: { metric, amount in
                let series = PluginSeries.from(metric)
                if !series.set(amount) { series.misused("set", amount) }
            },
            observe: { metric, amount in
                let series = PluginSeries.from(metric)
                if !series.observe(amount) { series.misused("observe", amount) }
            }
        ))
        return table
    }()

    /// `metric`: the series' handle, or NULL with the reason logged.
    private static func declare(
        _ context: PluginContext, _ kind: ph_metric_kind, _ name: UnsafePointer<CChar>, _ help: UnsafePointer<CChar>,
        _ labels: UnsafePointer<UnsafePointer<CChar>?>?, _ buckets: UnsafePointer<Double>?, _ count: Int
    ) -> OpaquePointer? {
        let shown = text(name, limit: PluginMetricDeclaration.maxNameBytes + 1)
        guard context.creating else {
            context.logger.error("ph.metrics/1: \(shown) refused: metrics are declared in create, and create has returned")
            return nil
        }
        var pairs: [String] = []
        if let labels {
            // Read no further than one pair past the most labels there may be.
            var index = 0
            while index < 2 * PluginMetricDeclaration.maxLabels + 2, let label = labels[index] {
                pairs.append(text(label, limit: PluginMetricDeclaration.maxLabelValueBytes + 1))
                index += 1
            }
        }
        let bounds: [Double]? = buckets.flatMap { buckets in
            count == 0 ? nil : Array(UnsafeBufferPointer(start: buckets, count: min(count, PluginMetricDeclaration.maxBuckets + 1)))
        }
        let checked = PluginMetricDeclaration.check(
            plugin: context.name, kind: Int32(bitPattern: kind.rawValue), name: shown,
            help: text(help, limit: PluginMetricDeclaration.maxHelpBytes + 1), labels: pairs, buckets: bounds)
        switch checked.flatMap({ context.metrics.series($0, of: context.name, logger: context.logger) }) {
        case .success(let series):
            return series.handle
        case .failure(let refusal):
            context.logger.error("ph.metrics/1: \(shown) refused: \(refusal)")
            return nil
        }
    }

    /// The string at `pointer`, `limit` bytes at most (a longer one breaks
    /// a rule as it is); bytes that are not UTF-8 as U+FFFD (which no name takes).
    private static func text(_ pointer: UnsafePointer<CChar>, limit: Int) -> String {
        let length = strnlen(pointer, limit)
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
