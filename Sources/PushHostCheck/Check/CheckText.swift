import PushHostJSON
/// The findings of a ``ReportCheck`` as a person reads them: one block per
/// expected line that did not match and per report line not expected, then
/// a count.
extension ReportCheck {
    package var text: String {
        var out = ""
        var matched = 0, differ = 0, missing = 0, unexpected = 0
        for finding in findings {
            switch finding {
            case .matched:
                matched += 1
            case .differs(let expected, let report, let differences):
                differ += 1
                out += "\(Self.label(expected)), report line \(report.number):\n"
                out += differences.map { "  \($0.description)\n" }.joined()
                out += "  the report line: \(Self.shown(report))\n"
            case .outOfOrder(let expected, let report, let differences):
                differ += 1
                out += "\(Self.label(expected)): out of order: report line \(report.number) has it, before the lines "
                    + "that earlier expected lines took\n"
                out += differences.map { "  \($0.description)\n" }.joined()
            case .missing(let expected):
                missing += 1
                out += "\(Self.label(expected)): not in the report\n"
            case .unexpected(let report):
                unexpected += 1
                out += "report line \(report.number): not expected: \(Self.shown(report))\n"
            }
        }
        let expected = matched + differ + missing
        if passed { return out + "check: all \(expected) expected lines match, and the report has no other line\n" }
        var summary = "check: \(matched) of \(expected) expected lines match"
        if differ > 0 { summary += "; \(differ) differ" }
        if missing > 0 { summary += "; \(missing) not in the report" }
        if unexpected > 0 { summary += "; \(unexpected) report line\(unexpected == 1 ? "" : "s") not expected" }
        return out + summary + "\n"
    }

    /// `expected line 3 (id "m-2")`, or with the line itself when it names no id.
    static func label(_ line: NumberedLine) -> String {
        "expected line \(line.number) " + (line.id.map { "(id \(JSONWriter.quoted($0)))" } ?? "(\(shown(line)))")
    }

    /// The line as compact JSON, or why it is none.
    static func shown(_ line: NumberedLine) -> String {
        switch line.value {
        case .success(let tree): tree.json
        case .failure(let error): "no JSON object (\(error.reason))"
        }
    }
}
