import Foundation

/// A scrape in the Prometheus text format: each sample by its series.
struct MetricsText: CustomStringConvertible {
    let text: String
    /// Each sample by `name{label="value",...}`, its labels sorted by name.
    let samples: [String: Double]
    /// The series that came more than once.
    let duplicates: [String]

    var description: String { text }

    init(_ text: String) throws {
        self.text = text
        var samples: [String: Double] = [:]
        var duplicates: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let (name, labels, rest) = try Self.parse(Substring(line))
            let value = rest.split(separator: " ").first.map(String.init) ?? ""
            guard let number = Double(value) ?? (value == "+Inf" ? .infinity : nil) else {
                throw MetricsEndpoint.Failure(description: "no value in: \(line)")
            }
            let key = Self.series(name, labels)
            if samples[key] != nil { duplicates.append(key) }
            samples[key] = number
        }
        self.samples = samples
        self.duplicates = duplicates
    }

    /// The key of `name` with `labels`.
    static func series(_ name: String, _ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return name }
        return name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",") + "}"
    }

    /// The sample of `name` with exactly `labels`; nil when absent.
    subscript(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples[Self.series(name, labels)]
    }

    /// Every sample of `name`, by its labels.
    func all(_ name: String) -> [[String: String]: Double] {
        var found: [[String: String]: Double] = [:]
        for (key, value) in samples {
            guard let (sampleName, labels, _) = try? Self.parse(Substring(key)), sampleName == name else { continue }
            found[labels] = value
        }
        return found
    }

    /// `name`, its labels, and what follows them.
    private static func parse(_ line: Substring) throws -> (String, [String: String], Substring) {
        guard let end = line.firstIndex(where: { $0 == "{" || $0 == " " }) else { return (String(line), [:], "") }
        let name = String(line[..<end])
        guard line[end] == "{" else { return (name, [:], line[line.index(after: end)...]) }
        var labels: [String: String] = [:]
        var index = line.index(after: end)
        while index < line.endIndex, line[index] != "}" {
            guard let equals = line[index...].firstIndex(of: "="), line.index(after: equals) < line.endIndex,
                  line[line.index(after: equals)] == "\"" else {
                throw MetricsEndpoint.Failure(description: "bad labels in: \(line)")
            }
            let key = String(line[index..<equals]).trimmingCharacters(in: CharacterSet(charactersIn: ", "))
            var value = ""
            var cursor = line.index(equals, offsetBy: 2)
            while cursor < line.endIndex, line[cursor] != "\"" {
                if line[cursor] == "\\", line.index(after: cursor) < line.endIndex {
                    cursor = line.index(after: cursor)
                    value.append(line[cursor] == "n" ? "\n" : line[cursor])
                } else {
                    value.append(line[cursor])
                }
                cursor = line.index(after: cursor)
            }
            guard cursor < line.endIndex else { throw MetricsEndpoint.Failure(description: "unended label in: \(line)") }
            labels[key] = value
            index = line.index(after: cursor)
            if index < line.endIndex, line[index] == "," { index = line.index(after: index) }
        }
        guard index < line.endIndex else { throw MetricsEndpoint.Failure(description: "unended labels in: \(line)") }
        return (name, labels, line[line.index(after: index)...].drop { $0 == " " })
    }
}
