import Prometheus

/// The writes of a file the host keeps (the report, the delivered store),
/// and the failed ones, for `--metrics`.
struct WriteCounters {
    let writes: Counter
    let failures: Counter
}

extension MetricNameDescriptor {
    /// `pushhost_NAME`, with its help text.
    static func pushhost(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pushhost", metricName: name, unitName: "", helpText: help)
    }
}
