/// A ``ReportCheck`` as a JUnit XML file, which CI systems show as tests:
/// one test case per expected line, named by its line and id, failing with
/// what differs; and one more, "no other report line", failing with the
/// report lines no expected line took.
extension ReportCheck {
    package func junit(suite: String) -> String {
        var cases: [(name: String, failure: (message: String, detail: String)?)] = []
        var unexpected: [String] = []
        for finding in findings {
            switch finding {
            case .matched(let expected, _):
                cases.append((Self.caseName(expected), nil))
            case .differs(let expected, let report, let differences):
                let lines = differences.map(\.description)
                cases.append((Self.caseName(expected), (lines.joined(separator: "; "),
                                                       (lines + ["report line \(report.number): \(Self.shown(report))"]).joined(separator: "\n"))))
            case .outOfOrder(let expected, let report, let differences):
                let message = "out of order: report line \(report.number) has it, before the lines that earlier expected lines took"
                cases.append((Self.caseName(expected), (message, ([message] + differences.map(\.description)).joined(separator: "\n"))))
            case .missing(let expected):
                cases.append((Self.caseName(expected), ("not in the report", "expected: \(Self.shown(expected))")))
            case .unexpected(let report):
                unexpected.append("report line \(report.number): \(Self.shown(report))")
            }
        }
        cases.append(("no other report line", unexpected.isEmpty ? nil
            : ("\(unexpected.count) report line\(unexpected.count == 1 ? "" : "s") not expected", unexpected.joined(separator: "\n"))))
        let failures = cases.filter { $0.failure != nil }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(cases.count)\" failures=\"\(failures)\">\n"
        xml += "  <testsuite name=\"\(Self.xml(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\">\n"
        for item in cases {
            xml += "    <testcase classname=\"pushhost.check\" name=\"\(Self.xml(item.name))\""
            guard let failure = item.failure else {
                xml += "/>\n"
                continue
            }
            xml += ">\n      <failure message=\"\(Self.xml(failure.message))\">\(Self.xml(failure.detail))</failure>\n    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// `line 3: m-2`, or `line 3` and the line when it names no id.
    static func caseName(_ line: NumberedLine) -> String {
        "line \(line.number): " + (line.id ?? shown(line))
    }

    /// `text` for XML text or an attribute: markup escaped, and the
    /// characters XML 1.0 cannot hold (controls other than tab, line feed
    /// and carriage return) as U+FFFD.
    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
