/// Pieces of Prometheus's text format that the host writes itself, for the
/// histograms whose counts it keeps in cells of its own (handlers'
/// durations, plugins' metrics) rather than in the registry.
package enum PrometheusText {
    /// One histogram series: a cumulative line per bound, `+Inf`, the sum
    /// and the count. `labels` are written already (`a="b",c="d"`, or
    /// empty); `counts` has one more than `bounds` (above the last).
    package static func histogram(_ name: String, labels: String, bounds: [Double], counts: [UInt64], sum: Double, into text: inout String) {
        let before = labels.isEmpty ? "" : labels + ","
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative &+= counts[index]
            text += "\(name)_bucket{\(before)le=\"\(number(bound))\"} \(cumulative)\n"
        }
        cumulative &+= counts[bounds.count]
        let plain = labels.isEmpty ? "" : "{\(labels)}"
        text += "\(name)_bucket{\(before)le=\"+Inf\"} \(cumulative)\n"
        text += "\(name)_sum\(plain) \(number(sum))\n"
        text += "\(name)_count\(plain) \(cumulative)\n"
    }

    /// A label value (`quotes`) or a help text as the format escapes it.
    package static func escaped(_ text: String, quotes: Bool) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quotes: out += "\\\""
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A number as the format writes it.
    package static func number(_ value: Double) -> String {
        value.isInfinite ? (value > 0 ? "+Inf" : "-Inf") : value.isNaN ? "NaN" : "\(value)"
    }
}
