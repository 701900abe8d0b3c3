import Logging
import PushHostPlugins

/// [host, an isolated plugin's relay thread] What the plugin's worker says
/// of its metrics (``MetricFrames``), taken as untrusted bytes: each
/// declaration is checked again under the plugin's name as the host knows
/// it, and each value must fit its series (a counter never goes down, a
/// histogram's counts never fall). A declaration the rules refuse is logged
/// and its values are dropped; a frame that is malformed, or names a
/// series never declared, ends the worker as any malformed answer does.
final class MetricsReceiver {
    private let plugin: String
    private let metrics: PluginMetrics
    private let logger: Logger
    /// The series of this worker by its number, with what it reached last
    /// (nil: nothing yet); nil for one the rules refused.
    private var known: [UInt64: (series: PluginSeries, last: [Double]?)?] = [:]

    init(plugin: String, metrics: PluginMetrics) {
        self.plugin = plugin
        self.metrics = metrics
        logger = Logger(label: plugin)
    }

    /// The worker is gone: its gauges have no value until another worker sends one.
    func workerEnded() {
        for case let (series, _)? in known.values { series.workerEnded() }
    }

    /// Takes one metric frame; what was wrong with it, if anything.
    func take(_ frame: WorkerFrame.Frame) -> String? {
        switch frame.kind {
        case .metric:
            guard known[frame.call] == nil else { return "a second metric frame for series \(frame.call)" }
            guard known.count < PluginMetrics.maxSeries else { return "more than \(PluginMetrics.maxSeries) metric series" }
            guard let (name, help, labels, buckets) = MetricFrames.declaration(in: frame) else { return "a malformed metric frame" }
            let checked = PluginMetricDeclaration.check(
                plugin: plugin, kind: frame.number, name: name, help: help, labels: labels, buckets: buckets.isEmpty ? nil : buckets)
            switch checked.flatMap({ metrics.series($0, of: plugin, logger: logger) }) {
            case .success(let series):
                known[frame.call] = .some((series, nil))
            case .failure(let refusal):
                logger.error("ph.metrics/1: \(name.prefix(100)) refused (declared in its worker): \(refusal)")
                known[frame.call] = .some(nil)
            }
        case .metricValues:
            guard let values = MetricFrames.values(in: frame) else { return "a malformed metric values frame" }
            for (number, reached) in values {
                guard let entry = known[number] else { return "values for metric series \(number), which it never declared" }
                guard let (series, last) = entry else { continue }
                guard series.take(reached, over: last) else {
                    return "values for metric series \(number) (\(series.declaration.fullName)) that do not fit it"
                }
                known[number] = .some((series, reached))
            }
        default:
            return "a \(frame.kind) frame among metric frames"
        }
        return nil
    }
}
