/// A report held against the lines expected of it, in the order written.
///
/// Each expected line takes one report line: an expected line with an `id`
/// takes the next report line with that id (the report lines it passes on
/// the way are left for later expected lines, or are unexpected); one
/// without takes, of the next 64 report lines of its kind not yet taken
/// (the same `event`, or none: a message), the first that differs least
/// from it. A line taken is
/// compared on the fields the expected line names (``FieldDifference``).
/// An id found only before the lines already taken is out of order.
package struct ReportCheck: Sendable {
    /// What became of each expected line, in their order, then the report
    /// lines no expected line took, in theirs.
    package let findings: [CheckFinding]

    /// How many lines of its kind an expected line without an id looks at.
    static let lookahead = 64

    package init(expected: [NumberedLine], report: [NumberedLine]) {
        var taken = [Bool](repeating: false, count: report.count)
        var cursor = 0
        var findings: [CheckFinding] = []
        func isFree(_ index: Int) -> Bool { !taken[index] && report[index].object != nil }
        for line in expected {
            guard let wanted = line.object else { continue }
            let found: Int?
            var late = false
            if let id = line.id {
                if let next = (cursor..<report.count).first(where: { isFree($0) && report[$0].id == id }) {
                    found = next
                } else {
                    found = (0..<min(cursor, report.count)).first { isFree($0) && report[$0].id == id }
                    late = found != nil
                }
            } else {
                // Of the next lines of its kind (the same host event, or a
                // message), the first that differs least.
                let kind = (cursor..<report.count).lazy.filter { isFree($0) && report[$0].object?["event"] == wanted["event"] }
                found = kind.prefix(Self.lookahead)
                    .map { (index: $0, count: FieldDifference.between(expected: wanted, actual: report[$0].object!).count) }
                    .min { $0.count < $1.count }?.index
            }
            guard let index = found, let actual = report[index].object else {
                findings.append(.missing(expected: line))
                continue
            }
            taken[index] = true
            if !late { cursor = index + 1 }
            let differences = FieldDifference.between(expected: wanted, actual: actual)
            findings.append(late ? .outOfOrder(expected: line, report: report[index], differences)
                : differences.isEmpty ? .matched(expected: line, report: report[index])
                : .differs(expected: line, report: report[index], differences))
        }
        findings += report.indices.filter { !taken[$0] }.map { .unexpected(report: report[$0]) }
        self.findings = findings
    }

    /// Whether every expected line matched and no report line is left over.
    package var passed: Bool {
        findings.allSatisfy { if case .matched = $0 { true } else { false } }
    }
}

/// What `pushhost check` found for one expected line, or for a report line
/// no expected line took.
package enum CheckFinding: Sendable {
    case matched(expected: NumberedLine, report: NumberedLine)
    case differs(expected: NumberedLine, report: NumberedLine, [FieldDifference])
    /// The report has the line, before lines taken for earlier expected lines.
    case outOfOrder(expected: NumberedLine, report: NumberedLine, [FieldDifference])
    case missing(expected: NumberedLine)
    /// No expected line took it; or it is no JSON object.
    case unexpected(report: NumberedLine)
}
