/// What a plugin may name and declare through `ph.metrics/1`
/// (docs/plugins.md, metrics), checked before anything is registered: in
/// the host for a plugin there, and again in the host for what an isolated
/// plugin's worker says it declared.
package struct PluginMetricDeclaration: Equatable, Sendable {
    package enum MetricKind: Int32, Sendable {
        case counter = 0
        case gauge = 1
        case histogram = 2

        var word: String {
            switch self {
            case .counter: "counter"
            case .gauge: "gauge"
            case .histogram: "histogram"
            }
        }
    }

    package let kind: MetricKind
    /// The name as the plugin gave it, and as it is served: the plugin's
    /// name (`-` as `_`) before it.
    package let name: String
    package let fullName: String
    package let help: String
    package let labelNames: [String]
    package let labelValues: [String]
    /// A histogram's upper bounds, ascending; empty for the others.
    package let buckets: [Double]

    static let maxNameBytes = 100
    static let maxHelpBytes = 300
    package static let maxLabels = 8
    static let maxLabelValueBytes = 128
    package static let maxBuckets = 64
    /// The host's own buckets, in seconds: 1 µs to 30 s.
    static let defaultBuckets = [
        1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]

    /// The declaration, or why it breaks the rules. `labels` alternate
    /// names and values; `buckets` nil takes the host's own.
    package static func check(
        plugin: String, kind raw: Int32, name: String, help: String, labels: [String], buckets: [Double]?
    ) -> Result<PluginMetricDeclaration, MetricRefusal> {
        guard let kind = MetricKind(rawValue: raw) else { return .failure(MetricRefusal("kind \(raw) is none of counter (0), gauge (1), histogram (2)")) }
        guard isSnakeCase(name), name.utf8.count <= maxNameBytes else {
            return .failure(MetricRefusal("the name \(quoted(name)) is not lowercase snake case ([a-z_][a-z0-9_]*, \(maxNameBytes) bytes at most)"))
        }
        let reserved = ["_bucket", "_sum", "_count", "_created"]
        if kind == .counter, !name.hasSuffix("_total") {
            return .failure(MetricRefusal("the counter \(name) does not end in _total"))
        }
        if kind != .counter, name.hasSuffix("_total") {
            return .failure(MetricRefusal("\(name) ends in _total, which only a counter's name does"))
        }
        if let suffix = reserved.first(where: { name.hasSuffix($0) }) {
            return .failure(MetricRefusal("\(name) ends in \(suffix), which Prometheus gives a histogram's own series"))
        }
        let prefix = String(plugin.map { $0 == "-" ? "_" : $0 })
        let fullName = prefix + "_" + name
        guard !fullName.hasPrefix("pushhost_") else { return .failure(MetricRefusal("\(fullName): the names pushhost_... are the host's")) }
        guard !help.isEmpty, help.utf8.count <= maxHelpBytes, !help.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            return .failure(MetricRefusal("the help of \(name) is not one line of 1 to \(maxHelpBytes) bytes"))
        }
        guard labels.count % 2 == 0 else { return .failure(MetricRefusal("the labels of \(name) are not pairs of a name and a value")) }
        guard labels.count / 2 <= maxLabels else { return .failure(MetricRefusal("\(name) has \(labels.count / 2) labels, over \(maxLabels)")) }
        let names = stride(from: 0, to: labels.count, by: 2).map { labels[$0] }
        let values = stride(from: 1, to: labels.count, by: 2).map { labels[$0] }
        for label in names {
            guard isSnakeCase(label), label.utf8.count <= maxNameBytes, !label.hasPrefix("__") else {
                return .failure(MetricRefusal("the label name \(quoted(label)) of \(name) is not lowercase snake case, or starts with __"))
            }
            if label == "le" || label == "quantile" { return .failure(MetricRefusal("the label name \(label) of \(name) is Prometheus's own")) }
        }
        guard Set(names).count == names.count else { return .failure(MetricRefusal("\(name) names a label twice")) }
        if let long = values.first(where: { $0.utf8.count > maxLabelValueBytes }) {
            return .failure(MetricRefusal("a label value of \(name) is \(long.utf8.count) bytes, over \(maxLabelValueBytes)"))
        }
        var bounds: [Double] = []
        if kind == .histogram {
            bounds = buckets ?? defaultBuckets
            guard !bounds.isEmpty, bounds.count <= maxBuckets, bounds.allSatisfy(\.isFinite),
                  zip(bounds, bounds.dropFirst()).allSatisfy({ $0 < $1 })
            else {
                return .failure(MetricRefusal("the buckets of \(name) are not 1 to \(maxBuckets) finite bounds, each above the one before"))
            }
        } else if let buckets, !buckets.isEmpty {
            return .failure(MetricRefusal("\(name) is a \(kind.word), which has no buckets"))
        }
        return .success(PluginMetricDeclaration(
            kind: kind, name: name, fullName: fullName, help: help, labelNames: names, labelValues: values, buckets: bounds))
    }

    /// `[a-z_][a-z0-9_]*`.
    private static func isSnakeCase(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// `"text"`, cut at 40 characters, for a refusal.
    private static func quoted(_ text: String) -> String {
        text.count > 40 ? "\"\(text.prefix(40))...\"" : "\"\(text)\""
    }

    /// Why a declaration was refused.
    package struct MetricRefusal: Error, CustomStringConvertible, Equatable {
        package let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
