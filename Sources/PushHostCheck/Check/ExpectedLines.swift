/// Expected lines made from a report (`pushhost check --update`): each
/// line as the report has it, less what changes from run to run or with
/// the input's layout rather than with what the host did: `source` (line
/// numbers, file names), `retained_at` (a time), and an `id` the host made
/// up from the source (`stdin-7`, `x.json#3`, `fifo-source-2`). A field
/// named in an expected line is compared, these too.
extension NumberedLine {
    /// The expected line this report line makes, or a `#` note for a line
    /// that is no JSON object.
    package var expectedLine: String {
        guard let object else { return "# report line \(number): \(ReportCheck.shown(self))" }
        let madeUp = object["source"].flatMap(Self.defaultID)
        return object.removing { key, value in
            key == "source" || key == "retained_at" || (key == "id" && madeUp != nil && value == .string(madeUp!))
        }.json
    }

    /// The id the host gives a record with none of its own, from its
    /// `source`: `stdin-7`, `x.json`, `x.json#3`, `fifo-source-2`.
    static func defaultID(_ source: JSONTree) -> String? {
        func number(_ key: String) -> String? {
            guard case .number(let value, _)? = source[key], value >= 0, value == value.rounded() else { return nil }
            return String(Int(value))
        }
        switch source["kind"] {
        case .string("stdin")?:
            return number("line").map { "stdin-" + $0 }
        case .string("spool")?:
            guard case .string(let file)? = source["file"] else { return nil }
            return file + (number("line").map { "#" + $0 } ?? "")
        case .string("plugin")?:
            guard case .string(let plugin)? = source["plugin"], let record = number("record") else { return nil }
            return plugin + "-" + record
        default:
            return nil
        }
    }
}
