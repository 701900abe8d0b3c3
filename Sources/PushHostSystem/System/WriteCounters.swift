import Prometheus

/// The writes of a file the host keeps (the report, the delivered store),
/// and the failed ones, for `--metrics`.
package struct WriteCounters {
    package let writes: Counter
    package let failures: Counter

    package init(writes: Counter, failures: Counter) {
        self.writes = writes
        self.failures = failures
    }
}

extension MetricNameDescriptor {
    /// `pushhost_NAME`, with its help text.
    package static func pushhost(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pushhost", metricName: name, unitName: "", helpText: help)
    }
}
