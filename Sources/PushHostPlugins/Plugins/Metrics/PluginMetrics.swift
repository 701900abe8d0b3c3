import Logging
import PushHostSystem
import Synchronization

/// Every plugin's own metrics (`ph.metrics/1`) of one run, rendered after
/// the host's at `/metrics`: their families by full name, each with its
/// series. One family belongs to one plugin, and its kind, help, label
/// names and buckets are fixed by its first declaration; its series are
/// told apart by their label values.
///
/// In a worker, a declaration also goes to the host (`declared`), which
/// checks it again and keeps the series the host serves.
package final class PluginMetrics: @unchecked Sendable {
    /// The most series one plugin may have.
    package static let maxSeries = 1000

    private struct Family {
        let plugin: String
        let first: PluginMetricDeclaration
        var series: [PluginSeries] = []
    }

    private struct Families {
        var families: [String: Family] = [:]
        var order: [String] = []
        var seriesOf: [String: Int] = [:]
        var nextID: [String: UInt64] = [:]
    }

    private let state = Mutex(Families())
    /// [worker] Called with each new series, to tell the host.
    let declared: (@Sendable (PluginSeries) -> Void)?

    package init(declared: (@Sendable (PluginSeries) -> Void)? = nil) {
        self.declared = declared
    }

    /// The series `declaration` names, for `plugin`: made, or the one made
    /// before with the same label values; or why not.
    package func series(
        _ declaration: PluginMetricDeclaration, of plugin: String, logger: Logger
    ) -> Result<PluginSeries, PluginMetricDeclaration.MetricRefusal> {
        let made = state.withLock { state -> Result<(PluginSeries, Bool), PluginMetricDeclaration.MetricRefusal> in
            if let family = state.families[declaration.fullName] {
                guard family.plugin == plugin else {
                    return .failure(.init("\(declaration.fullName) is a metric of the plugin \(family.plugin) already"))
                }
                let first = family.first
                guard first.kind == declaration.kind, first.help == declaration.help, first.labelNames == declaration.labelNames,
                      first.buckets == declaration.buckets
                else {
                    let what = first.kind == declaration.kind ? " with other help, label names or buckets" : ""
                    return .failure(.init(
                        "\(declaration.name) was declared before as a \(first.kind.word)\(what); the same name takes the same kind, help, label names and buckets"))
                }
                if let same = family.series.first(where: { $0.declaration.labelValues == declaration.labelValues }) {
                    return .success((same, false))
                }
            }
            let count = state.seriesOf[plugin, default: 0]
            guard count < Self.maxSeries else { return .failure(.init("the plugin has \(Self.maxSeries) series already")) }
            let id = state.nextID[plugin, default: 1]
            state.nextID[plugin] = id + 1
            state.seriesOf[plugin] = count + 1
            let series = PluginSeries(declaration, id: id, logger: logger)
            if state.families[declaration.fullName] == nil {
                state.families[declaration.fullName] = Family(plugin: plugin, first: declaration)
                state.order.append(declaration.fullName)
            }
            state.families[declaration.fullName]!.series.append(series)
            return .success((series, true))
        }
        return made.map { series, isNew in
            if isNew { declared?(series) }
            return series
        }
    }

    /// Every series, in the order they were made.
    var all: [PluginSeries] {
        state.withLock { state in state.order.flatMap { state.families[$0]!.series } }
    }

    // MARK: The text

    /// Every family in the Prometheus text format.
    package func render(into text: inout String) {
        let families = state.withLock { state in state.order.map { state.families[$0]! } }
        for family in families {
            let name = family.first.fullName
            text += "# HELP \(name) \(PrometheusText.escaped(family.first.help, quotes: false))\n"
            text += "# TYPE \(name) \(family.first.kind.word)\n"
            for series in family.series where series.isServed {
                let labels = zip(series.declaration.labelNames, series.declaration.labelValues)
                    .map { "\($0)=\"\(PrometheusText.escaped($1, quotes: true))\"" }.joined(separator: ",")
                guard family.first.kind == .histogram else {
                    text += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(PrometheusText.number(series.current))\n"
                    continue
                }
                PrometheusText.histogram(
                    name, labels: labels, bounds: series.declaration.buckets, counts: series.bucketCounts, sum: series.current, into: &text)
            }
        }
    }
}
