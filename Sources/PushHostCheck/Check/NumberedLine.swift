/// One line of a report or of an expected report, with its line number
/// (from 1), parsed; or why it is no JSON object.
package struct NumberedLine: Sendable {
    package let number: Int
    package let value: Result<JSONTree, JSONTreeError>

    /// The object, or nil when the line is no JSON object.
    var object: JSONTree? {
        guard case .success(let tree) = value, case .object = tree else { return nil }
        return tree
    }

    /// The line's `id` when it is a string.
    var id: String? {
        guard case .string(let id)? = object?["id"] else { return nil }
        return id
    }

    /// The lines of `text`: NDJSON, blank lines left out; with `comments`,
    /// lines whose first character is `#` too (an expected report's notes).
    package static func lines(of text: String, comments: Bool) -> [NumberedLine] {
        var lines: [NumberedLine] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if trimmed.isEmpty || (comments && trimmed.first == "#") { continue }
            var value = JSONTree.parse(line)
            if case .success(let tree) = value, case .object = tree {} else if case .success = value {
                value = .failure(JSONTreeError(reason: "not a JSON object"))
            }
            lines.append(NumberedLine(number: index + 1, value: value))
        }
        return lines
    }
}
